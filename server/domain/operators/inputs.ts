import { z } from 'zod';

/**
 * What each operator action takes, checked by one schema whether it comes through the API (server/routers/admin.ts)
 * or the shell (server/cli/admin-commands.ts): the same input is refused by both, with the same words.
 */
/**
 * A reason someone can read: at least one letter or digit of any script. Trimming alone lets "\u200b" (zero width
 * space), other format characters or punctuation alone through, and the audit log would show nothing.
 */
const reason = z
  .string()
  .trim()
  // An empty reason is told as such, once, not also as one without letters.
  .min(1, { message: 'A reason is required (1–500 characters): it is kept in the audit log', abort: true })
  .max(500)
  .regex(/[\p{L}\p{N}]/u, 'A reason needs at least one visible letter or digit: it is kept in the audit log')
  .meta({ description: 'Why: kept in the audit log (1–500 characters, with at least one letter or digit)' });
/** A UTC day written YYYY-MM-DD that exists (2026-02-30 does not). */
const utcDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date written YYYY-MM-DD')
  .refine((text) => {
    const day = new Date(`${text}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text);
  }, 'No such date')
  .meta({ description: 'UTC day, YYYY-MM-DD', example: '2026-11-23' });
const accountId = z.string().min(1).max(64).meta({ description: 'Account id (acc_…)' });
const objectId = z.string().min(1).max(64);
const nonZero = (min: number, max: number) =>
  z
    .number()
    .int()
    .min(min)
    .max(max)
    .refine((n) => n !== 0, 'Must not be 0');

export const operatorInputs = {
  search: z.object({ q: z.string().trim().min(1).max(254) }),
  account: z.object({ id: accountId }),
  adjustCredits: z.object({ id: accountId, delta: nonZero(-1_000_000, 1_000_000), reason }),
  adjustAdFunds: z.object({ id: accountId, delta_cents: nonZero(-100_000_000, 100_000_000), reason }),
  refundPurchase: z.object({ transaction_id: objectId, reason }),
  suspension: z.object({ id: accountId, reason }),
  productReview: z.object({ id: objectId, reason }),
  payouts: z.object({ status: z.enum(['requested', 'paid', 'rejected']).optional() }),
  /** The payout, the transfer's reference (when paid) and the reason. */
  payoutSettlement: z.object({ id: objectId, reference: z.string().trim().min(1).max(200).optional(), reason }),
  /** A campaign's traffic of one UTC day, of one client address (IPv4 or IPv6) or all of it. */
  invalidTraffic: z.object({
    id: objectId.meta({ description: 'Campaign id (cmp_…)' }),
    date: utcDate,
    address: z
      .union([z.ipv4(), z.ipv6()])
      .optional()
      .meta({ description: 'Only the impressions from this client address; none: the whole day' }),
    reason,
  }),
  fleet: z.object({ days: z.coerce.number().int().min(1).max(90).default(7) }),
};
