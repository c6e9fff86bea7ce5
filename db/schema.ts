import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/**
 * Column conventions that make both dialects return the same JS shapes without per-query care:
 * - times are epoch milliseconds in BIGINT/INTEGER columns (never DATETIME), turned into ISO strings at the edge;
 * - flags are 0/1 integers; money is whole credits or cents;
 * - mysql2 is configured to return BIGINT and DECIMAL as numbers (db/client.ts).
 */
export type EpochMs = number;
export type Flag = 0 | 1;

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string;
  credits: ColumnType<number, number | undefined, number>;
  total_purchased: ColumnType<number, number | undefined, number>;
  total_used: ColumnType<number, number | undefined, number>;
  key_bonus_granted_at: EpochMs | null;
  payment_method_id: string | null;
  auto_topup_enabled: ColumnType<Flag, Flag | undefined, Flag>;
  auto_topup_amount: ColumnType<number, number | undefined, number>;
  auto_topup_threshold: ColumnType<number, number | undefined, number>;
  low_balance_threshold: ColumnType<number, number | undefined, number>;
  created_at: EpochMs;
}

export interface SessionsTable {
  id: string;
  account_id: string;
  expires_at: EpochMs;
}

export type KeyMode = 'live' | 'test';

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: string;
  name: string;
  mode: KeyMode;
  key_hash: string;
  prefix: string;
  created_at: EpochMs;
  last_used_at: EpochMs | null;
  revoked_at: EpochMs | null;
}

export type LedgerReason = 'signup_bonus' | 'purchase' | 'auto_topup' | 'stage' | 'enhance' | 'refund';

export interface CreditLedgerTable {
  id: Generated<number>;
  account_id: string;
  delta: number;
  reason: LedgerReason;
  balance_after: number;
  reference: string | null;
  api_key_id: number | null;
  created_at: EpochMs;
}

export interface WebhooksTable {
  key_id: number;
  account_id: string;
  url: string | null;
  enabled: Flag;
  secret: string | null;
  created_at: EpochMs;
  updated_at: EpochMs;
}

export interface WebhookEventsTable {
  id: string;
  account_id: string;
  key_id: number | null;
  event: string;
  /** The exact JSON bytes that are signed and sent on every attempt. */
  payload: string;
  created_at: EpochMs;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  key_id: number;
  status: DeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: EpochMs | null;
  /** Lease held by the worker attempting it; an expired lease means the attempt died with its process. */
  locked_until: EpochMs | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: EpochMs | null;
  created_at: EpochMs;
}

export interface Database {
  accounts: AccountsTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  credit_ledger: CreditLedgerTable;
  webhooks: WebhooksTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export type Account = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type LedgerEntry = Selectable<CreditLedgerTable>;
export type Webhook = Selectable<WebhooksTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
