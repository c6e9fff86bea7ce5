import { z } from 'zod';

/**
 * What each operator action takes, checked by one schema whether it comes through the API (server/routers/admin.ts)
 * or the shell (server/cli/admin-commands.ts): the same input is refused by both, with the same words.
 */
const reason = z
  .string()
  .trim()
  .min(1, 'A reason is required (1–500 characters): it is kept in the audit log')
  .max(500)
  .meta({ description: 'Why: kept in the audit log (1–500 characters)' });
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
  fleet: z.object({ days: z.coerce.number().int().min(1).max(90).default(7) }),
};
