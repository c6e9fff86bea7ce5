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
  /** The Stripe Customer of this account (one per account), created at its first Checkout. */
  stripe_customer_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** What the dashboard shows of the card on file; `payment_method_simulated` = 1 for the built-in gateway's cards. */
  payment_method_brand: ColumnType<string | null, string | null | undefined, string | null>;
  payment_method_last4: ColumnType<string | null, string | null | undefined, string | null>;
  payment_method_exp_month: ColumnType<number | null, number | null | undefined, number | null>;
  payment_method_exp_year: ColumnType<number | null, number | null | undefined, number | null>;
  payment_method_simulated: ColumnType<Flag | null, Flag | null | undefined, Flag | null>;
  /** Credits auto top-up may buy per calendar month (UTC); null = no cap. */
  auto_topup_monthly_limit: ColumnType<number | null, number | null | undefined, number | null>;
  /** No off-session charge is tried before this time (set after a failed one). */
  auto_topup_paused_until: ColumnType<EpochMs | null, EpochMs | null | undefined, EpochMs | null>;
  auto_topup_consecutive_failures: ColumnType<number, number | undefined, number>;
  auto_topup_last_failure_reason: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface SessionsTable {
  /** SHA-256 (hex) of the identity token, never the token itself (server/auth/lucia-adapter.ts). */
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
  /** Internal order only; clients see `public_id`. */
  id: Generated<number>;
  /** `txn_…`, random: the transaction id clients see (a row id would tell how busy the service is). */
  public_id: string;
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
  /** The secret replaced by the last rotation: deliveries carry its signature too until it expires (24 h). */
  previous_secret: ColumnType<string | null, string | null | undefined, string | null>;
  previous_secret_expires_at: ColumnType<EpochMs | null, EpochMs | null | undefined, EpochMs | null>;
  /** Why Roomstage switched the webhook off (the receiver answered 410 Gone); cleared when the owner saves it. */
  disabled_reason: ColumnType<string | null, string | null | undefined, string | null>;
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

export interface IdempotencyKeysTable {
  key_id: number;
  idempotency_key: string;
  /** SHA-256 of the operation and its canonical input: the same key with another request is a conflict. */
  fingerprint: string;
  status: 'in_progress' | 'completed';
  response_body: string | null;
  created_at: EpochMs;
}

export interface ImageOperationLeasesTable {
  id: string;
  key_id: number;
  expires_at: EpochMs;
}

/** Credits an image request holds until its result is stored (then the row goes) or they are refunded. */
export interface ChargeHoldsTable {
  id: string;
  account_id: string;
  key_id: number | null;
  credits: number;
  reason: Extract<LedgerReason, 'stage' | 'enhance'>;
  /** Written on the debit and on its refund (the request's first image id). */
  reference: string;
  /** The request's Idempotency-Key (scoped to key_id), freed when the hold is refunded. */
  idempotency_key: string | null;
  /** `created_at` of that Idempotency-Key record: only the record this request started is freed. */
  idempotency_started_at: EpochMs | null;
  created_at: EpochMs;
  /** Renewed by the process working on the request; once it has passed, that request died. */
  lease_expires_at: EpochMs;
}

export type ImageKind = 'staged' | 'enhanced' | 'placed' | 'decluttered';

export interface ClaimsTable {
  /** `RS-` + 8 Crockford base32 characters, stored in canonical upper case. */
  code: string;
  /** The issuing account and key (the API user). */
  account_id: string;
  key_id: number | null;
  image_count: ColumnType<number, number | undefined, number>;
  created_at: EpochMs;
  expires_at: EpochMs;
  /** The agent's account; null until redeemed. */
  redeemed_by: string | null;
  redeemed_at: EpochMs | null;
  /** The style and seed its first stage used: later stages into the claim reuse them unless they say otherwise. */
  style: ColumnType<string | null, string | null | undefined, string | null>;
  seed: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ImagesTable {
  id: string;
  account_id: string;
  key_id: number | null;
  claim_code: string | null;
  kind: ImageKind;
  /** Unguessable file name in image storage, served at /images/<name>. */
  storage_name: string;
  content_type: string;
  width: number;
  height: number;
  style: string | null;
  room_type: string | null;
  source_image_id: string | null;
  /** SHA-256 (hex) of the stored output bytes, to recognise our own output sent back in; null for enhanced images. */
  output_sha256: ColumnType<string | null, string | null | undefined, string | null>;
  /** The input the output was drawn on, in image storage under a name that is never served. */
  original_storage_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON of the engine's Scene (server/imaging/engine.ts): the pieces drawn over the original. */
  scene: ColumnType<string | null, string | null | undefined, string | null>;
  /** The capability in the public page of its original (`/o/<token>`); null for enhanced images. */
  original_token: ColumnType<string | null, string | null | undefined, string | null>;
  /** The disclosure profile it was made with (null: made before profiles, or enhanced). */
  disclosure: ColumnType<DisclosureProfile | null, DisclosureProfile | null | undefined, DisclosureProfile | null>;
  /** The seed it was drawn with, when one was used. */
  seed: ColumnType<number | null, number | null | undefined, number | null>;
  /** A re-render: the first image of its line, whose free re-renders it used. */
  rerender_of: ColumnType<string | null, string | null | undefined, string | null>;
  /** Free re-renders taken from this image (and the re-renders of it), counted with a conditional update. */
  free_rerenders_used: ColumnType<number, number | undefined, number>;
  created_at: EpochMs;
}

export interface ProductsTable {
  id: string;
  name: string;
  brand: string;
  category: string;
  asset: string;
  revenue_per_mille_cents: number;
  /** Comma-separated room types the product suits. */
  room_types: string;
  active: ColumnType<Flag, Flag | undefined, Flag>;
}

export interface PlacementsTable {
  id: Generated<number>;
  image_id: string;
  product_id: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Snapshot of the product's rate when it was placed, in US cents per 1 000 impressions. */
  revenue_per_mille_cents: number;
  impressions: ColumnType<number, number | undefined, number>;
  created_at: EpochMs;
}

export interface RateLimitWindowsTable {
  bucket: string;
  window_start: EpochMs;
  hits: number;
}

/** The last impression counted for one viewer (hash of IP + User-Agent) of one placed image. */
export interface ImpressionViewsTable {
  image_id: string;
  viewer: string;
  counted_at: EpochMs;
}

export type CheckoutStatus = 'open' | 'complete' | 'expired';
export type GatewayName = 'stripe' | 'simulated';

/** A purchase of credits; `credited_at` is claimed once, by whichever of the Stripe event or the return page comes first. */
export interface CheckoutSessionsTable {
  id: string;
  account_id: string;
  credits: number;
  gateway: GatewayName;
  checkout_url: string;
  status: CheckoutStatus;
  credited_at: EpochMs | null;
  created_at: EpochMs;
}

/** Ids of the Stripe events already applied: each is applied at most once. */
export interface StripeEventsTable {
  id: string;
  type: string;
  received_at: EpochMs;
}

export type TopUpStatus = 'pending' | 'succeeded' | 'failed';

/** One auto top-up try. `in_flight_account_id` is unique and set only while pending: one top-up at a time per account. */
export interface TopUpAttemptsTable {
  id: string;
  account_id: string;
  in_flight_account_id: string | null;
  amount: number;
  status: TopUpStatus;
  reason: string | null;
  payment_id: string | null;
  created_at: EpochMs;
  /** A pending attempt whose lease passed died with its process; the next trigger finishes it (same idempotency key). */
  lease_expires_at: EpochMs;
  finished_at: EpochMs | null;
}

/**
 * Usage of one account on one UTC day through one API key (0: none, e.g. purchases), maintained in the same
 * transactions as the rows it counts (server/domain/usage/rollup.ts); GET /usage sums these rows.
 */
export interface UsageDailyTable {
  account_id: string;
  /** Days since 1970-01-01 (UTC): floor(epoch ms / 86 400 000). */
  day: number;
  key_id: number;
  images_staged: ColumnType<number, number | undefined, number>;
  images_enhanced: ColumnType<number, number | undefined, number>;
  product_placements: ColumnType<number, number | undefined, number>;
  /** Credits spent by stage and enhance, net of refunds (a refund on a later day lowers that day's figure). */
  credits_used: ColumnType<number, number | undefined, number>;
  credits_purchased: ColumnType<number, number | undefined, number>;
  claims_issued: ColumnType<number, number | undefined, number>;
  /** Claims this account issued that were redeemed that day (by any agent). */
  claims_redeemed: ColumnType<number, number | undefined, number>;
}

export type JobOperation = 'stage' | 'enhance' | 'place_products' | 'declutter' | 'rerender';
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** An asynchronous image request (CONTRACT §5): charged when accepted, run by whichever worker leases it. */
export interface JobsTable {
  id: string;
  account_id: string;
  key_id: number;
  operation: JobOperation;
  status: JobStatus;
  /** JSON of the validated request (server/domain/jobs/inputs.ts); images are in `job_inputs`. */
  input: string;
  /** The credits taken when the job was accepted; null for free operations. */
  hold_id: string | null;
  /** JSON: the synchronous 200 body, once succeeded. */
  result: string | null;
  /** JSON: the CONTRACT §1 error body, once failed. */
  error: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  lease_owner: string | null;
  /** Queued: when it falls due (its creation). Running: when its worker counts as dead. */
  lease_expires_at: EpochMs | null;
  created_at: EpochMs;
  finished_at: EpochMs | null;
}

export interface JobInputsTable {
  storage_name: string;
  job_id: string;
  position: number;
}

/**
 * How an output discloses that it was staged: `label` draws the "Virtually staged" mark, `caption` only writes the
 * caption (markets that forbid watermarks), `ca_ab723` draws the mark and a QR code to the original's page.
 */
export type DisclosureProfile = 'none' | 'label' | 'caption' | 'ca_ab723';

/** An account's staging defaults; no row: the defaults. */
export interface StagingSettingsTable {
  account_id: string;
  disclosure: DisclosureProfile;
  updated_at: EpochMs;
}

export interface Database {
  checkout_sessions: CheckoutSessionsTable;
  stripe_events: StripeEventsTable;
  topup_attempts: TopUpAttemptsTable;
  accounts: AccountsTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  credit_ledger: CreditLedgerTable;
  charge_holds: ChargeHoldsTable;
  webhooks: WebhooksTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  claims: ClaimsTable;
  images: ImagesTable;
  products: ProductsTable;
  placements: PlacementsTable;
  idempotency_keys: IdempotencyKeysTable;
  image_operation_leases: ImageOperationLeasesTable;
  rate_limit_windows: RateLimitWindowsTable;
  impression_views: ImpressionViewsTable;
  usage_daily: UsageDailyTable;
  jobs: JobsTable;
  job_inputs: JobInputsTable;
  staging_settings: StagingSettingsTable;
}

export type Account = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type LedgerEntry = Selectable<CreditLedgerTable>;
export type ChargeHold = Selectable<ChargeHoldsTable>;
export type Webhook = Selectable<WebhooksTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;
export type Claim = Selectable<ClaimsTable>;
export type Image = Selectable<ImagesTable>;
export type Product = Selectable<ProductsTable>;
export type PlacementRow = Selectable<PlacementsTable>;
export type CheckoutSession = Selectable<CheckoutSessionsTable>;
export type TopUpAttempt = Selectable<TopUpAttemptsTable>;
export type Job = Selectable<JobsTable>;
