import type { Kysely } from 'kysely';
import { type Db, isMysql } from '../../../db/client.js';
import { isUniqueViolation } from '../../../db/errors.js';
import type { Account, Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { hashPassword } from '../../auth/passwords.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Sign-up's rows, in the caller's transaction: the user, their security row (unverified, two-factor off), their
 * personal account (with the user's id, so a personal account and its user are found by one id) and the `owner`
 * membership that joins them.
 */
export async function insertAccount(
  trx: Kysely<Database>,
  input: { email: string; passwordHash: string; now: number },
): Promise<Account> {
  const id = newId('account');
  const email = normalizeEmail(input.email);
  try {
    await trx
      .insertInto('users')
      .values({ id, email, password_hash: input.passwordHash, created_at: input.now })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError('conflict', 'An account with this e-mail already exists. Sign in instead.');
    throw error;
  }
  await trx
    .insertInto('accounts')
    .values({ id, email, name: email, key_bonus_granted_at: null, payment_method_id: null, created_at: input.now })
    .execute();
  await trx
    .insertInto('memberships')
    .values({ account_id: id, user_id: id, role: 'owner', created_at: input.now })
    .execute();
  await trx.insertInto('user_security').values({ user_id: id }).execute();
  return trx.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** An account without the sign-up e-mail (benchmarks and tests that seed the database directly). */
export async function createAccount(db: Db, input: { email: string; password: string; now: number }): Promise<Account> {
  const passwordHash = await hashPassword(input.password);
  return inTransaction(db, (trx) => insertAccount(trx, { email: input.email, passwordHash, now: input.now }));
}

/** The account's row, locked for the rest of the transaction (SQLite: the transaction is the lock); 404 if unknown. */
export async function lockAccount(trx: Kysely<Database>, accountId: string) {
  const query = trx
    .selectFrom('accounts')
    .select(['id', 'email', 'credits', 'suspended_at'])
    .where('id', '=', accountId);
  const account = await (isMysql(trx) ? query.forUpdate() : query).executeTakeFirst();
  if (!account) throw new AppError('not_found', `No account ${accountId}.`);
  return account;
}
