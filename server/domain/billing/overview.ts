import type { Kysely } from 'kysely';
import type { Account, Database } from '../../../db/schema.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { BALANCE_COLUMNS, type BalanceSummary, presentBalance } from '../credits/ledger.js';

export interface PaymentMethodSummary {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  simulated: boolean;
}

export interface AutoTopUpSettings {
  enabled: boolean;
  amount: number;
  threshold: number;
  monthly_limit: number | null;
  paused_until: string | null;
  last_failure_reason: string | null;
}

export type BillingOverview = Omit<BalanceSummary, 'auto_topup'> & {
  auto_topup: AutoTopUpSettings;
  payment_method: PaymentMethodSummary | null;
};

export const BILLING_COLUMNS = [
  ...BALANCE_COLUMNS,
  'payment_method_brand',
  'payment_method_last4',
  'payment_method_exp_month',
  'payment_method_exp_year',
  'payment_method_simulated',
  'auto_topup_monthly_limit',
  'auto_topup_paused_until',
  'auto_topup_last_failure_reason',
] as const;

export type BillingRow = Pick<Account, (typeof BILLING_COLUMNS)[number]>;

function presentPaymentMethod(row: BillingRow): PaymentMethodSummary | null {
  if (row.payment_method_id === null) return null;
  return {
    brand: row.payment_method_brand ?? 'card',
    last4: row.payment_method_last4 ?? '0000',
    exp_month: row.payment_method_exp_month ?? 0,
    exp_year: row.payment_method_exp_year ?? 0,
    simulated: row.payment_method_simulated === 1,
  };
}

/** A pause that has passed is no pause. */
function activePause(row: Pick<Account, 'auto_topup_paused_until'>, now: number): number | null {
  return row.auto_topup_paused_until !== null && row.auto_topup_paused_until > now ? row.auto_topup_paused_until : null;
}

export function presentAutoTopUp(row: BillingRow, now: number): AutoTopUpSettings {
  const balance = presentBalance(row);
  return {
    ...balance.auto_topup,
    monthly_limit: row.auto_topup_monthly_limit,
    paused_until: iso(activePause(row, now)),
    last_failure_reason: row.auto_topup_last_failure_reason,
  };
}

export async function readBillingRow(db: Kysely<Database>, accountId: string): Promise<BillingRow> {
  const row = await db.selectFrom('accounts').select(BILLING_COLUMNS).where('id', '=', accountId).executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Account not found.');
  return row;
}

/** The dashboard's balance and billing state (GET /billing). */
export async function getBillingOverview(
  db: Kysely<Database>,
  accountId: string,
  now: number,
): Promise<BillingOverview> {
  const row = await readBillingRow(db, accountId);
  const { auto_topup: _, ...balance } = presentBalance(row);
  return { ...balance, auto_topup: presentAutoTopUp(row, now), payment_method: presentPaymentMethod(row) };
}
