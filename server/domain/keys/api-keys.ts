import { createHash } from 'node:crypto';
import { type CompiledQuery, type InferResult, type Kysely, sql } from 'kysely';
import { type Db, startGatheringBatch } from '../../../db/client.js';
import { sharedFreshReads } from '../../../db/shared-reads.js';
import { inTransaction } from '../../../db/transaction.js';
import type { ApiKey, Database, DisclosureProfile, KeyMode } from '../../../db/schema.js';
import { AppError } from '../../errors.js';
import { randomBase62 } from '../../ids.js';
import { BALANCE_COLUMNS, type BalanceSummary, grantFirstKeyBonus, presentBalance } from '../credits/ledger.js';
import { log } from '../../observability/logger.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';
import { DEFAULT_DISCLOSURE } from '../disclosure/disclosure.js';

/** What a key may be used for; a key made without a list may do everything. */
export const KEY_SCOPES = ['stage', 'enhance', 'place_products', 'declutter', 'credits:read', 'jobs:read'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** Stored as a comma-separated list; null means every scope, including ones added later. */
export function scopesOf(key: Pick<ApiKey, 'scopes'>): KeyScope[] {
  return key.scopes === null ? [...KEY_SCOPES] : (key.scopes.split(',').filter(Boolean) as KeyScope[]);
}

export function keyAllows(key: { scopes: string | null }, scope: KeyScope): boolean {
  return key.scopes === null || key.scopes.split(',').includes(scope);
}

export const KEY_BODY_LENGTH = 32;
export const KEY_PREFIX_LENGTH = 12;
const KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{32}$/;

export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext).digest('hex');
}

/** Looks like one of our keys; anything else is not an API key credential at all. */
export function isApiKeyShaped(credential: string): boolean {
  return KEY_PATTERN.test(credential);
}

/** The SHA-256 of a key-shaped credential: what keys are looked up by. A distinct type, so plaintext never passes for it. */
export type ApiKeyHash = string & { readonly __brand: 'ApiKeyHash' };

/** A presented credential's hash, computed once for every lookup its request makes; null when it is not key-shaped. */
export function apiKeyHashOf(credential: string): ApiKeyHash | null {
  return isApiKeyShaped(credential) ? (hashApiKey(credential) as ApiKeyHash) : null;
}

export function generateApiKey(mode: KeyMode) {
  const plaintext = `sk_${mode}_${randomBase62(KEY_BODY_LENGTH)}`;
  return { plaintext, hash: hashApiKey(plaintext), prefix: plaintext.slice(0, KEY_PREFIX_LENGTH) };
}

export interface CreatedKey {
  key: ApiKey;
  plaintext: string;
  bonusCreditsGranted: number;
}

/**
 * The key row and the first-key bonus commit together; the plaintext leaves this function once and is never stored.
 * The bonus update comes first so the account row is locked exclusively before the key's foreign key would take a
 * shared lock on it (the other order deadlocks concurrent first keys on InnoDB).
 */
/** Active (unrevoked) keys an account may hold: enough for every server and environment, not a key per request. */
export const MAX_ACTIVE_KEYS = 100;

export async function createApiKey(
  db: Db,
  input: {
    accountId: string;
    name: string;
    mode: KeyMode;
    /** Omitted: every scope. */
    scopes?: readonly KeyScope[];
    expiresAt?: number | null;
    origin: AuditOrigin;
    now: number;
  },
): Promise<CreatedKey> {
  if (input.expiresAt != null && input.expiresAt <= input.now)
    throw new AppError('invalid_request', 'expires_at must be in the future.', {
      details: [{ path: 'expires_at', message: 'must be in the future' }],
    });
  const scopes =
    input.scopes === undefined ? null : KEY_SCOPES.filter((scope) => input.scopes?.includes(scope)).join(',');
  const generated = generateApiKey(input.mode);
  return inTransaction(db, async (trx) => {
    // Writing the account row first queues concurrent creates of one account behind each other, so the count
    // below is never two requests' stale view of 99.
    await trx
      .updateTable('accounts')
      .set((eb) => ({ id: eb.ref('id') }))
      .where('id', '=', input.accountId)
      .execute();
    const { active } = await trx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('active'))
      .where('account_id', '=', input.accountId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(active) >= MAX_ACTIVE_KEYS) {
      throw new AppError(
        'conflict',
        `This account already has ${MAX_ACTIVE_KEYS} active API keys, the most it may hold. Revoke one to create another.`,
      );
    }
    const bonusCreditsGranted = await grantFirstKeyBonus(trx, input.accountId, input.now);
    const inserted = await trx
      .insertInto('api_keys')
      .values({
        account_id: input.accountId,
        name: input.name,
        mode: input.mode,
        key_hash: generated.hash,
        prefix: generated.prefix,
        created_at: input.now,
        last_used_at: null,
        revoked_at: null,
        scopes,
        expires_at: input.expiresAt ?? null,
        created_by: input.origin.actor.type === 'user' ? input.origin.actor.id : null,
      })
      .executeTakeFirstOrThrow();
    const key = await trx
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', Number(inserted.insertId))
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'key.created',
      origin: input.origin,
      target: `key_${key.id}`,
      details: {
        name: key.name,
        mode: key.mode,
        prefix: key.prefix,
        scopes: scopesOf(key),
        expires_at: key.expires_at,
      },
      now: input.now,
    });
    return { key, plaintext: generated.plaintext, bonusCreditsGranted };
  });
}

/** A key with the e-mail of the user who created it (null: unknown, or the user is gone). */
export type ListedApiKey = ApiKey & { created_by_email: string | null };

export async function listApiKeys(db: Db, accountId: string): Promise<ListedApiKey[]> {
  return db
    .selectFrom('api_keys')
    .leftJoin('users', 'users.id', 'api_keys.created_by')
    .selectAll('api_keys')
    .select('users.email as created_by_email')
    .where('api_keys.account_id', '=', accountId)
    .orderBy('api_keys.id', 'desc')
    .execute();
}

/** Another account's key is reported as missing, never as forbidden. */
export async function getOwnApiKey(db: Kysely<Database>, accountId: string, keyId: number): Promise<ApiKey> {
  const key = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!key) throw new AppError('not_found', `No API key ${keyId} in this account.`);
  return key;
}

/** Idempotent: revoking a revoked key keeps its first revocation time. */
export async function revokeApiKey(
  db: Db,
  input: { accountId: string; keyId: number; origin: AuditOrigin; now: number },
): Promise<ApiKey> {
  return inTransaction(db, async (trx) => {
    const revoked = await trx
      .updateTable('api_keys')
      .set({ revoked_at: input.now })
      .where('id', '=', input.keyId)
      .where('account_id', '=', input.accountId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const key = await getOwnApiKey(trx, input.accountId, input.keyId);
    if (Number(revoked.numUpdatedRows) === 1)
      await recordAudit(trx, {
        accountId: input.accountId,
        action: 'key.revoked',
        origin: input.origin,
        target: `key_${key.id}`,
        details: { name: key.name, prefix: key.prefix },
        now: input.now,
      });
    return key;
  });
}

/** A key checked once for a request, with the hash it was found by (the same header gives the same hash). */
export interface VerifiedApiKey {
  hash: ApiKeyHash;
  key: AuthenticatedKey;
}

export interface AuthenticatedKey {
  id: number;
  accountId: string;
  mode: KeyMode;
  scopes: string | null;
  expiresAt: number | null;
  /** Set while an operator has the account suspended: the key is refused. */
  suspendedAt: number | null;
  /** The account's balance as the request began, read in the same query that verified the key. */
  balance: BalanceSummary;
  /** The account's default disclosure profile, read in that query too. */
  defaultDisclosure: DisclosureProfile;
}

/** The uses of keys waiting to be written (key id → latest use), and whether a write is in flight. */
interface KeyUses {
  waiting: Map<number, number>;
  writing: boolean;
}

/** Per database. */
const keyUses = new WeakMap<Db, KeyUses>();

/**
 * Records a use of a key in `last_used_at` without making the request wait. At most one write is in flight per
 * database; the uses of every key that arrive meanwhile are written together by the next one, each key's latest
 * time, so a stored value trails its newest use by at most one round trip however busy the server is (on SQLite,
 * one event-loop turn: startGatheringBatch). The condition keeps a slower write (or another process) from moving a
 * time backwards. A failed write is logged, never thrown. The dashboard's playground records its charges through a
 * key here too: they are that key's use.
 */
export function recordKeyUse(db: Db, keyId: number, now: number): void {
  let uses = keyUses.get(db);
  if (!uses) {
    uses = { waiting: new Map(), writing: false };
    keyUses.set(db, uses);
  }
  uses.waiting.set(keyId, Math.max(uses.waiting.get(keyId) ?? now, now));
  if (uses.writing) return;
  uses.writing = true;
  startGatheringBatch(db, () => writeKeyUses(db, uses));
}

function writeKeyUses(db: Db, uses: KeyUses): void {
  const batch = uses.waiting;
  if (batch.size === 0) {
    uses.writing = false;
    return;
  }
  uses.waiting = new Map();
  const keyIds = [...batch.keys()];
  const latest = sql<number>`case ${sql.ref('id')} ${sql.join(
    [...batch].map(([id, at]) => sql`when ${id} then ${at}`),
    sql` `,
  )} end`;
  db.updateTable('api_keys')
    .set({ last_used_at: latest })
    .where('id', 'in', keyIds)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', latest)]))
    .execute()
    .catch((error: unknown) => log.error({ err: error, keyIds }, 'the use of an API key could not be recorded'))
    .finally(() => writeKeyUses(db, uses));
}

function keyCheckQuery(db: Db, keyHashes: ApiKeyHash[]) {
  return (
    db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      // The account's staging default rides along: a stage that names no profile needs no second round trip.
      .leftJoin('staging_settings', 'staging_settings.account_id', 'api_keys.account_id')
      .select([
        'api_keys.id',
        'api_keys.key_hash',
        'api_keys.account_id',
        'api_keys.mode',
        'api_keys.scopes',
        'api_keys.expires_at',
        'staging_settings.disclosure as default_disclosure',
        'accounts.suspended_at',
        ...BALANCE_COLUMNS.map((column) => `accounts.${column}` as const),
      ])
      .where('api_keys.key_hash', 'in', keyHashes)
      .where('api_keys.revoked_at', 'is', null)
  );
}

type KeyRow = InferResult<ReturnType<typeof keyCheckQuery>>[number];
const singleKeyChecks = new WeakMap<Db, CompiledQuery<KeyRow>>();

/**
 * The check of one key (what a quiet server sends) is built and compiled once per database and reused with each
 * request's hash as its one parameter (building and compiling it was ~5 % of bench:auth's CPU); a check of several
 * keys at once is compiled for its batch.
 */
function keyCheckFor(db: Db, keyHashes: ApiKeyHash[]): CompiledQuery<KeyRow> {
  if (keyHashes.length !== 1) return keyCheckQuery(db, keyHashes).compile();
  let compiled = singleKeyChecks.get(db);
  if (!compiled) {
    compiled = keyCheckQuery(db, keyHashes).compile();
    if (compiled.parameters.length !== 1)
      throw new Error('the API key check must have the key hash as its only parameter');
    singleKeyChecks.set(db, compiled);
  }
  return { ...compiled, parameters: keyHashes };
}

const keyReads = new WeakMap<Db, (keyHash: ApiKeyHash) => Promise<KeyRow | undefined>>();

/**
 * The key's row, by a check that began after this call did: the requests that arrive while a check is in flight
 * share the next one, one query for all their keys (db/shared-reads.ts). So a revocation committed before a request
 * arrived is always seen, and a busy server sends one key check per round trip, not one per request (bench:auth,
 * cluster mode: each statement sent was a cross-CPU wake-up of MariaDB, the largest cost of a request).
 */
function keyRowOf(db: Db, keyHash: ApiKeyHash): Promise<KeyRow | undefined> {
  let reads = keyReads.get(db);
  if (!reads) {
    reads = sharedFreshReads(async (hashes: ApiKeyHash[]) => {
      const { rows } = await db.executeQuery(keyCheckFor(db, hashes));
      return new Map(rows.map((row) => [row.key_hash as ApiKeyHash, row]));
    });
    keyReads.set(db, reads);
  }
  return reads(keyHash);
}

/** Per database: the ids of keys that authenticated lately, by hash (a key's id never changes; revocation is not cached). */
const knownKeyIds = new WeakMap<Db, Map<ApiKeyHash, number>>();
const KNOWN_KEY_IDS_MAX = 10_000;

function rememberKeyId(db: Db, keyHash: ApiKeyHash, id: number): void {
  let ids = knownKeyIds.get(db);
  if (!ids) {
    ids = new Map();
    knownKeyIds.set(db, ids);
  }
  if (ids.size >= KNOWN_KEY_IDS_MAX) ids.clear();
  ids.set(keyHash, id);
}

/**
 * The id a credential had when it last authenticated in this process, if it did: a hint that lets a request start
 * work keyed by the id (its rate-limit count) while the key is checked. It says nothing about whether the key is
 * still valid; only `authenticateApiKey` does.
 */
export function lastKnownKeyId(db: Db, keyHash: ApiKeyHash): number | undefined {
  return knownKeyIds.get(db)?.get(keyHash);
}

/**
 * Checked against the database on every request, so a revocation on any process takes effect on the next one.
 * `last_used_at` is written on every use, as the spec asks; the request does not wait for that write (it is sent
 * to the database before the response, and its outcome only matters to the key listing).
 */
export async function authenticateApiKey(db: Db, keyHash: ApiKeyHash, now: number): Promise<AuthenticatedKey | null> {
  const row = await keyRowOf(db, keyHash);
  if (!row) return null;
  rememberKeyId(db, keyHash, row.id);
  recordKeyUse(db, row.id, now);
  return {
    id: row.id,
    accountId: row.account_id,
    mode: row.mode,
    scopes: row.scopes,
    expiresAt: row.expires_at,
    suspendedAt: row.suspended_at,
    balance: presentBalance(row),
    defaultDisclosure: row.default_disclosure ?? DEFAULT_DISCLOSURE,
  };
}
