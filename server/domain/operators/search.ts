import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { iso } from '../../clock.js';
import { apiKeyHashOf, KEY_PREFIX_LENGTH } from '../keys/api-keys.js';

type Executor = Kysely<Database>;

export interface AccountSummary {
  id: string;
  name: string;
  owner_email: string;
  credits: number;
  status: 'active' | 'suspended';
  created_at: string;
}

const SEARCH_LIMIT = 50;

/** Until accounts have members, an account is its one user: its name and owner are that user's e-mail. */
export function accountSummary(row: {
  id: string;
  email: string;
  credits: number;
  suspended_at: number | null;
  created_at: number;
}): AccountSummary {
  return {
    id: row.id,
    name: row.email,
    owner_email: row.email,
    credits: row.credits,
    status: row.suspended_at === null ? 'active' : 'suspended',
    created_at: iso(row.created_at),
  };
}

// '!' escapes LIKE's wildcards the same way in SQLite and MariaDB (a backslash does not).
const escapeLike = (text: string) => text.replace(/[!%_]/g, (c) => `!${c}`);
const like = (pattern: string) => sql<boolean>`like ${pattern} escape '!'`;

/** The ids of the accounts `q` names: an e-mail (or part of one), acc_…, a key or its prefix, a claim code, img_…, job_…. */
async function matchingAccountIds(db: Executor, q: string): Promise<string[]> {
  const lower = q.toLowerCase();
  if (lower.startsWith('acc_')) return [q];
  if (lower.startsWith('img_')) {
    const rows = await db.selectFrom('images').select('account_id').where('id', '=', q).execute();
    return rows.map((row) => row.account_id);
  }
  if (lower.startsWith('job_')) {
    const rows = await db.selectFrom('jobs').select('account_id').where('id', '=', q).execute();
    return rows.map((row) => row.account_id);
  }
  if (lower.startsWith('rs-')) {
    // The issuer and, once redeemed, the agent.
    const claim = await db
      .selectFrom('claims')
      .select(['account_id', 'redeemed_by'])
      .where('code', '=', q.toUpperCase())
      .executeTakeFirst();
    return claim ? [claim.account_id, ...(claim.redeemed_by ? [claim.redeemed_by] : [])] : [];
  }
  if (lower.startsWith('sk_')) {
    const hash = apiKeyHashOf(q);
    let keys = db.selectFrom('api_keys').select('account_id');
    keys =
      q.length >= KEY_PREFIX_LENGTH
        ? keys.where((eb) =>
            eb.or([eb('prefix', '=', q.slice(0, KEY_PREFIX_LENGTH)), ...(hash ? [eb('key_hash', '=', hash)] : [])]),
          )
        : keys.where(sql<boolean>`prefix ${like(`${escapeLike(q)}%`)}`);
    return (await keys.limit(SEARCH_LIMIT).execute()).map((row) => row.account_id);
  }
  const rows = await db
    .selectFrom('accounts')
    .select('id')
    .where(sql<boolean>`email ${like(`%${escapeLike(lower)}%`)}`)
    .orderBy('created_at', 'desc')
    .limit(SEARCH_LIMIT)
    .execute();
  return rows.map((row) => row.id);
}

export async function searchAccounts(db: Executor, q: string): Promise<AccountSummary[]> {
  const ids = [...new Set(await matchingAccountIds(db, q.trim()))];
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'email', 'credits', 'suspended_at', 'created_at'])
    .where('id', 'in', ids)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map(accountSummary);
}
