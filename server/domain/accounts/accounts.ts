import type { Db } from '../../../db/client.js';
import { isUniqueViolation } from '../../../db/errors.js';
import type { Account } from '../../../db/schema.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../auth/passwords.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createAccount(db: Db, input: { email: string; password: string; now: number }): Promise<Account> {
  const email = normalizeEmail(input.email);
  const account = {
    id: newId('account'),
    email,
    password_hash: await hashPassword(input.password),
    key_bonus_granted_at: null,
    payment_method_id: null,
    created_at: input.now,
  };
  try {
    await db.insertInto('accounts').values(account).execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('conflict', 'An account with this e-mail already exists. Sign in instead.');
    throw error;
  }
  return db.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow();
}

/** Unknown e-mail and wrong password fail the same way and take the same time. */
export async function findAccountByCredentials(db: Db, email: string, password: string): Promise<Account | null> {
  const account = await db
    .selectFrom('accounts')
    .selectAll()
    .where('email', '=', normalizeEmail(email))
    .executeTakeFirst();
  const valid = await verifyPassword(account?.password_hash ?? DUMMY_PASSWORD_HASH, password);
  return account && valid ? account : null;
}

export async function getAccount(db: Db, accountId: string): Promise<Account> {
  const account = await db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
  if (!account) throw new AppError('not_found', 'Account not found.');
  return account;
}
