import type { Kysely } from 'kysely';
import type { Claim, Database, Image } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { DAY_MS, iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { emitEvent } from '../events/outbox.js';
import { recordUsage } from '../usage/rollup.js';
import { generateClaimCode, normalizeClaimCode } from './codes.js';

type Executor = Kysely<Database>;

export const CLAIM_VALIDITY_MS = 30 * DAY_MS;

export type ClaimStatus = 'unredeemed' | 'redeemed' | 'expired';

/** Derived, never stored: a claim expires by the passage of time alone. */
export function claimStatus(claim: Pick<Claim, 'redeemed_at' | 'expires_at'>, now: number): ClaimStatus {
  if (claim.redeemed_at !== null) return 'redeemed';
  return now >= claim.expires_at ? 'expired' : 'unredeemed';
}

function unknownClaim(): AppError {
  return new AppError(
    'not_found',
    'No claim with this code. Check the code (it looks like RS-7K3M9QXD) and try again.',
  );
}

function refusalFor(claim: Claim, now: number): AppError | null {
  switch (claimStatus(claim, now)) {
    case 'redeemed':
      return new AppError('claim_already_redeemed', `Claim ${claim.code} has already been redeemed.`);
    case 'expired':
      return new AppError(
        'claim_expired',
        `Claim ${claim.code} expired on ${iso(claim.expires_at)}; claims are valid for 30 days.`,
      );
    default:
      return null;
  }
}

/** The claim a typed code names, or 404 (also for codes that cannot be claim codes at all). */
async function findClaim(db: Executor, typed: string): Promise<Claim> {
  const code = normalizeClaimCode(typed);
  const claim = code
    ? await db.selectFrom('claims').selectAll().where('code', '=', code).executeTakeFirst()
    : undefined;
  if (!claim) throw unknownClaim();
  return claim;
}

/**
 * For `claim_code` on stage/enhance/place-products: the claim must be one this account issued (404 otherwise, never
 * revealing others' codes) and still open (409 redeemed, 410 expired). Returns the canonical code.
 */
export async function assertClaimOpenForIssuer(
  db: Executor,
  input: { typed: string; accountId: string; now: number },
): Promise<string> {
  const claim = await findClaim(db, input.typed);
  if (claim.account_id !== input.accountId) throw unknownClaim();
  const refusal = refusalFor(claim, input.now);
  if (refusal) throw refusal;
  return claim.code;
}

/** A new claim for freshly staged images; a code collision (1 in 2^40 per pair) just draws another code. */
export async function issueClaim(
  trx: Executor,
  input: {
    accountId: string;
    keyId: number | null;
    imageCount: number;
    now: number;
    /** The style and seed of its first stage, which later stages into it reuse. */
    listing?: { style: string; seed: number };
  },
): Promise<Claim> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const code = generateClaimCode();
    const taken = await trx.selectFrom('claims').select('code').where('code', '=', code).executeTakeFirst();
    if (taken) continue;
    const claim: Claim = {
      code,
      account_id: input.accountId,
      key_id: input.keyId,
      image_count: input.imageCount,
      created_at: input.now,
      expires_at: input.now + CLAIM_VALIDITY_MS,
      redeemed_by: null,
      redeemed_at: null,
      style: input.listing?.style ?? null,
      seed: input.listing?.seed ?? null,
    };
    await trx.insertInto('claims').values(claim).execute();
    await recordUsage(trx, {
      accountId: input.accountId,
      keyId: input.keyId,
      at: input.now,
      counts: { claims_issued: 1 },
    });
    return claim;
  }
  throw new Error('Could not draw an unused claim code');
}

/**
 * Adds images to an open claim of this account. The conditional update is the check, so an image never lands in
 * a claim that was redeemed (or expired) after the request began; then the same 404/409/410 as before charging.
 */
export async function addImagesToClaim(
  trx: Executor,
  input: { code: string; accountId: string; count: number; now: number; listing?: { style: string; seed: number } },
): Promise<Claim> {
  const { listing } = input;
  // A claim issued before listings were remembered takes the first stage that joins it.
  const updated = await trx
    .updateTable('claims')
    .set((eb) => ({
      image_count: eb('image_count', '+', input.count),
      ...(listing && {
        style: eb.fn.coalesce('style', eb.val(listing.style)),
        seed: eb.fn.coalesce('seed', eb.val(listing.seed)),
      }),
    }))
    .where('code', '=', input.code)
    .where('account_id', '=', input.accountId)
    .where('redeemed_at', 'is', null)
    .where('expires_at', '>', input.now)
    .executeTakeFirst();
  const claim = await trx.selectFrom('claims').selectAll().where('code', '=', input.code).executeTakeFirst();
  if (!claim || claim.account_id !== input.accountId) throw unknownClaim();
  if (Number(updated.numUpdatedRows) === 1) return claim;
  throw refusalFor(claim, input.now) ?? unknownClaim();
}

/** The style and seed a claim's first stage used (null until one did): later stages reuse them. */
export async function claimListing(
  db: Executor,
  code: string,
): Promise<{ style: string | null; seed: number | null } | undefined> {
  return db.selectFrom('claims').select(['style', 'seed']).where('code', '=', code).executeTakeFirst();
}

export interface ClaimPreview {
  valid: boolean;
  code: string;
  status: ClaimStatus;
  image_count: number;
  is_claimed: boolean;
  expires_at: string;
  days_until_expiry: number;
}

export async function previewClaim(db: Executor, typed: string, now: number): Promise<ClaimPreview> {
  const claim = await findClaim(db, typed);
  const status = claimStatus(claim, now);
  return {
    valid: status === 'unredeemed',
    code: claim.code,
    status,
    image_count: claim.image_count,
    is_claimed: claim.redeemed_at !== null,
    expires_at: iso(claim.expires_at),
    // Whole days left, rounded up: 29.2 days left reads as 30 until a full day has passed.
    days_until_expiry: Math.max(0, Math.ceil((claim.expires_at - now) / DAY_MS)),
  };
}

export interface Redemption {
  claim: Claim;
  images: Image[];
}

/**
 * Redeems a claim for an agent, free of charge. The conditional update picks exactly one winner however many agents
 * race (the loser sees 409); `claim.redeemed` goes to the issuing key's webhook in the same transaction, which this
 * function runs (retried when InnoDB picks it as a deadlock victim).
 */
export async function redeemClaim(
  db: Executor,
  input: { typed: string; accountId: string; email: string; now: number },
): Promise<Redemption> {
  const code = normalizeClaimCode(input.typed);
  if (!code) throw unknownClaim();
  return inTransaction(db, (trx) => redeemInTransaction(trx, code, input));
}

async function redeemInTransaction(
  trx: Executor,
  code: string,
  input: { accountId: string; email: string; now: number },
): Promise<Redemption> {
  const won = await trx
    .updateTable('claims')
    .set({ redeemed_by: input.accountId, redeemed_at: input.now })
    .where('code', '=', code)
    .where('redeemed_at', 'is', null)
    .where('expires_at', '>', input.now)
    .executeTakeFirst();
  const claim = await trx.selectFrom('claims').selectAll().where('code', '=', code).executeTakeFirst();
  if (!claim) throw unknownClaim();
  if (Number(won.numUpdatedRows) !== 1) throw refusalFor(claim, input.now) ?? unknownClaim();
  // The issuer's usage: its claims redeemed that day, on the key that issued them.
  await recordUsage(trx, {
    accountId: claim.account_id,
    keyId: claim.key_id,
    at: input.now,
    counts: { claims_redeemed: 1 },
  });

  await emitEvent(trx, {
    accountId: claim.account_id,
    keyId: claim.key_id,
    event: 'claim.redeemed',
    data: {
      claim_code: claim.code,
      claimed_by_email: input.email,
      image_count: claim.image_count,
      redeemed_at: iso(input.now),
    },
    now: input.now,
  });
  const images = await trx
    .selectFrom('images')
    .selectAll()
    .where('claim_code', '=', claim.code)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return { claim, images };
}

export interface ClaimListing {
  claim: Claim;
  status: ClaimStatus;
  claimedByEmail: string | null;
}

/** `redeemed`: the claims this agent redeemed; `issued`: the claims this account's keys issued, with who redeemed them. */
export async function listClaims(
  db: Executor,
  input: { accountId: string; role: 'redeemed' | 'issued'; now: number; limit?: number },
): Promise<ClaimListing[]> {
  const rows = await db
    .selectFrom('claims')
    .leftJoin('accounts as redeemer', 'redeemer.id', 'claims.redeemed_by')
    .selectAll('claims')
    .select('redeemer.email as redeemer_email')
    .where(input.role === 'redeemed' ? 'claims.redeemed_by' : 'claims.account_id', '=', input.accountId)
    .orderBy(input.role === 'redeemed' ? 'claims.redeemed_at' : 'claims.created_at', 'desc')
    .orderBy('claims.code')
    .limit(input.limit ?? 500)
    .execute();
  return rows.map(({ redeemer_email, ...claim }) => ({
    claim,
    status: claimStatus(claim, input.now),
    claimedByEmail: redeemer_email ?? null,
  }));
}
