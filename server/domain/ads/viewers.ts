import { createHmac, randomBytes } from 'node:crypto';
import { isbot } from 'isbot';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../../db/errors.js';
import type { Database } from '../../../db/schema.js';

type Executor = Kysely<Database>;

/**
 * Who counts as a viewer of a placed image, following the IAB/MRC invalid-traffic guidelines: the client address
 * (as TRUST_PROXY decides it) whatever its User-Agent, so rotating User-Agents from one address is one viewer.
 * Loads that are not a person looking at the image are served but never billed.
 */
export type UnbillableReason = 'head' | 'prefetch' | 'bot';

export interface ImageLoad {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

function header(load: ImageLoad, name: string): string {
  const value = load.headers[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).toLowerCase();
}

/**
 * Why a load is not an impression, or null when it is one: a HEAD request shows nothing; a prefetch or a link
 * preview is made before (or without) anyone looking (Chrome's `Sec-Purpose: prefetch`, the older `Purpose` and
 * Firefox's `X-Moz`, Safari's `X-Purpose: preview`); a known bot or crawler by isbot's maintained User-Agent list.
 */
export function unbillableReason(load: ImageLoad): UnbillableReason | null {
  if (load.method.toUpperCase() !== 'GET') return 'head';
  if (header(load, 'sec-purpose').includes('prefetch')) return 'prefetch';
  const purpose = `${header(load, 'purpose')} ${header(load, 'x-purpose')} ${header(load, 'x-moz')}`;
  if (purpose.includes('prefetch') || purpose.includes('preview')) return 'prefetch';
  if (isbot(header(load, 'user-agent'))) return 'bot';
  return null;
}

/** One spelling per address: IPv4 seen through an IPv6 socket (`::ffff:1.2.3.4`) is that IPv4 address. */
export function normalizeAddress(address: string): string {
  const trimmed = address.trim().toLowerCase();
  return trimmed.startsWith('::ffff:') && trimmed.includes('.') ? trimmed.slice(7) : trimmed;
}

const ADDRESS_KEY = 'impression_address_key';
const keys = new WeakMap<Executor, Promise<string>>();

/** The key that hashes addresses: made by the first node that needs it, then read by all from the database. */
async function addressKey(db: Executor, now: number): Promise<string> {
  try {
    await db
      .insertInto('server_secrets')
      .values({ name: ADDRESS_KEY, value: randomBytes(32).toString('hex'), created_at: now })
      .execute();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  const row = await db
    .selectFrom('server_secrets')
    .select('value')
    .where('name', '=', ADDRESS_KEY)
    .executeTakeFirstOrThrow();
  return row.value;
}

/**
 * The stored form of a client address: an HMAC under the server's key, so the database never holds addresses
 * (they cannot be recovered by hashing all 2³² IPv4 addresses), yet an operator who names an address finds its rows.
 */
export async function addressHash(db: Executor, address: string, now: number): Promise<string> {
  let key = keys.get(db);
  if (!key) {
    key = addressKey(db, now);
    keys.set(db, key);
    key.catch(() => keys.delete(db));
  }
  return createHmac('sha256', await key)
    .update(normalizeAddress(address))
    .digest('hex')
    .slice(0, 32);
}

/**
 * Whether a signed-in user belongs to the listing's side of an image: a member of the account that staged it or of
 * the agent account that redeemed its claim. Their loads (checking their own listing) are never billed.
 */
export async function isListingMember(db: Executor, input: { userId: string; imageId: string }): Promise<boolean> {
  const row = await db
    .selectFrom('images')
    .leftJoin('claims', 'claims.code', 'images.claim_code')
    .innerJoin('memberships', (join) =>
      join
        .on('memberships.user_id', '=', input.userId)
        .on((eb) =>
          eb.or([
            eb('memberships.account_id', '=', eb.ref('images.account_id')),
            eb('memberships.account_id', '=', eb.ref('claims.redeemed_by')),
          ]),
        ),
    )
    .select('memberships.account_id')
    .where('images.id', '=', input.imageId)
    .executeTakeFirst();
  return row !== undefined;
}
