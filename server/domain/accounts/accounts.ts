import type { Db } from '../../../db/client.js';
import { isUniqueViolation } from '../../../db/errors.js';
import type { Kysely } from 'kysely';
import type { Account, Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../auth/passwords.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The account row and its user's security row (unverified, two-factor off), in the caller's transaction. */
export async function insertAccount(
  trx: Kysely<Database>,
  input: { email: string; passwordHash: string; now: number },
): Promise<Account> {
  const id = newId('account');
  try {
    await trx
      .insertInto('accounts')
      .values({
        id,
        email: normalizeEmail(input.email),
        password_hash: input.passwordHash,
        key_bonus_granted_at: null,
        payment_method_id: null,
        created_at: input.now,
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('conflict', 'An account with this e-mail already exists. Sign in instead.');
    throw error;
  }
  await trx.insertInto('user_security').values({ user_id: id }).execute();
  return trx.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** An account without the sign-up e-mail (benchmarks and tests that seed the database directly). */
export async function createAccount(db: Db, input: { email: string; password: string; now: number }): Promise<Account> {
  const passwordHash = await hashPassword(input.password);
  return inTransaction(db, (trx) => insertAccount(trx, { email: input.email, passwordHash, now: input.now }));
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
