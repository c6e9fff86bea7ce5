import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/**
 * Column conventions that make both dialects return the same JS shapes without per-query care:
 * - times are epoch milliseconds in BIGINT/INTEGER columns (never DATETIME), turned into ISO strings at the edge;
 * - flags are 0/1 integers; money is whole credits or cents;
 * - mysql2 is configured to return BIGINT and DECIMAL as numbers (db/client.ts).
 */
export type EpochMs = number;
export type Flag = 0 | 1;

/**
 * What credits, keys, claims, images and settings belong to. People are users, members of accounts with a role.
 * A user's personal account has the user's id (sign-up makes both; accounts and users made before teams kept theirs).
 */
export interface AccountsTable {
  id: string;
  /** The account's contact address (receipts, payouts, operators' search): its creator's e-mail at sign-up. */
  email: string;
  /** What the account switcher shows; its creator's e-mail at first. */
  name: string;
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
  /** Advertising funds in milli-cents (1/1000 of a US cent): always Σ ad_funds_ledger deltas, never below 0. */
  ad_funds_millicents: ColumnType<number, number | undefined, number>;
  /** Set by an operator: every key and session of the account is refused (403 account_suspended) until cleared. */
  suspended_at: ColumnType<EpochMs | null, EpochMs | null | undefined, EpochMs | null>;
  /** 1: members without two-factor sign-in are refused on this account (403 two_factor_required) until they turn it on. */
  require_2fa: ColumnType<Flag, Flag | undefined, Flag>;
}

export interface SessionsTable {
  /** SHA-256 (hex) of the identity token, never the token itself (server/auth/lucia-adapter.ts). */
  id: string;
  /** Who signed in. */
  user_id: string;
  /** The account the session acts on (its user's personal one at first): POST /accounts/current changes it. */
  account_id: string;
  expires_at: EpochMs;
  /** Null for sessions made before these were recorded. */
  created_at: ColumnType<EpochMs | null, EpochMs | null | undefined, EpochMs | null>;
  /** Refreshed at most once a minute by the requests the session makes. */
  last_seen_at: ColumnType<EpochMs | null, EpochMs | null | undefined, EpochMs | null>;
  ip: ColumnType<string | null, string | null | undefined, string | null>;
  user_agent: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A person who signs in. Their security state is in `user_security`, keyed by the same id. */
export interface UsersTable {
  id: string;
  /** Lower case; unique. */
  email: string;
  password_hash: string;
  created_at: EpochMs;
}

export type Role = 'owner' | 'admin' | 'developer' | 'billing' | 'agent' | 'viewer';

export interface MembershipsTable {
  account_id: string;
  user_id: string;
  role: Role;
  created_at: EpochMs;
}

/** An e-mailed invitation to join an account; only the SHA-256 of its token is kept. Used once, then `accepted_at`. */
export interface InvitesTable {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  token_hash: string;
  invited_by: string;
  created_at: EpochMs;
  expires_at: EpochMs;
  accepted_at: EpochMs | null;
  accepted_by: string | null;
  revoked_at: EpochMs | null;
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
  /** Comma-separated scopes the key may use; null = every scope. */
  scopes: ColumnType<string | null, string | null | undefined, string | null>;
  /** After this the key is refused like a revoked one; null = never. */
  expires_at: ColumnType<EpochMs | null, EpochMs | null | undefined, EpochMs | null>;
  /** The user who created the key; null for keys older than this column with no audit entry to tell. */
  created_by: ColumnType<string | null, string | null | undefined, string | null>;
}

/** `adjustment`: an operator's grant or deduction, or the credits taken back when a purchase is refunded. */
export type LedgerReason = 'signup_bonus' | 'purchase' | 'auto_topup' | 'stage' | 'enhance' | 'refund' | 'adjustment';

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
  /** The engine that drew it (ENGINE); null for images made before this was recorded. */
  engine: ColumnType<string | null, string | null | undefined, string | null>;
  /** The fidelity score it passed with (0–1: how much of the input's structure it kept); null for enhanced and placed images, and older ones. */
  fidelity: ColumnType<number | null, number | null | undefined, number | null>;
  /** What the fidelity check found changed, JSON `[{kind, box}]` (photo pixels); null when not checked or older. */
  fidelity_changes: ColumnType<string | null, string | null | undefined, string | null>;
  /** How long the engine call that drew it took (ms), for the fleet report; null for images made before. */
  engine_ms: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: EpochMs;
}

export type ProductStatus = 'active' | 'paused' | 'rejected';

/** House products (the built-in catalog) have no `account_id`; advertisers' products do, and an uploaded image. */
export interface ProductsTable {
  id: string;
  name: string;
  brand: string;
  category: string;
  /** What the engine draws: an SVG under server/imaging/assets/products/, or the uploaded image's storage name. */
  asset: string;
  /** The house catalog's old display rate (history only); paid products are billed by their campaign's cpm. */
  revenue_per_mille_cents: number;
  /** Comma-separated room types the product suits. */
  room_types: string;
  active: ColumnType<Flag, Flag | undefined, Flag>;
  account_id: ColumnType<string | null, string | null | undefined, string | null>;
  status: ColumnType<ProductStatus, ProductStatus | undefined, ProductStatus>;
  image_storage_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** Comma-separated styles the product suits; empty: any style. */
  styles: ColumnType<string, string | undefined, string>;
  /** Set by DELETE: never selected again, kept for the images that show it. */
  archived_at: ColumnType<EpochMs | null, EpochMs | null | undefined, EpochMs | null>;
  created_at: ColumnType<EpochMs, EpochMs | undefined, EpochMs>;
}

/** `scheduled` and `ended` are not stored: they follow from the dates. */
export type StoredCampaignStatus = 'active' | 'paused' | 'exhausted';

export interface CampaignsTable {
  id: string;
  account_id: string;
  name: string;
  cpm_cents: number;
  total_budget_millicents: number;
  daily_budget_millicents: number | null;
  starts_at: EpochMs | null;
  ends_at: EpochMs | null;
  status: ColumnType<StoredCampaignStatus, StoredCampaignStatus | undefined, StoredCampaignStatus>;
  /** Why it is exhausted: its total budget, or the advertiser's funds (buying funds revives those). */
  exhausted_reason: ColumnType<
    'budget' | 'funds' | null,
    'budget' | 'funds' | null | undefined,
    'budget' | 'funds' | null
  >;
  spent_millicents: ColumnType<number, number | undefined, number>;
  impressions: ColumnType<number, number | undefined, number>;
  unbilled_impressions: ColumnType<number, number | undefined, number>;
  /** Impressions an operator declared invalid traffic: refunded, no longer in `impressions` or the spend. */
  invalid_impressions: ColumnType<number, number | undefined, number>;
  /** The UTC day (days since 1970) `spent_today_millicents` counts: the daily budget is checked on this row. */
  spend_day: ColumnType<number, number | undefined, number>;
  spent_today_millicents: ColumnType<number, number | undefined, number>;
  created_at: EpochMs;
  updated_at: EpochMs;
}

export interface CampaignProductsTable {
  campaign_id: string;
  product_id: string;
  /** Rotates products of equal cpm: the one placed longest ago goes first. */
  last_placed_at: ColumnType<EpochMs, EpochMs | undefined, EpochMs>;
}

/** One campaign on one UTC day: what the report reads. spend = agent + service, to the milli-cent. */
export interface CampaignDailyTable {
  campaign_id: string;
  day: number;
  account_id: string;
  impressions: ColumnType<number, number | undefined, number>;
  unbilled_impressions: ColumnType<number, number | undefined, number>;
  /** Impressions an operator declared invalid traffic: refunded, no longer in `impressions` or the spend. */
  invalid_impressions: ColumnType<number, number | undefined, number>;
  spend_millicents: ColumnType<number, number | undefined, number>;
  agent_millicents: ColumnType<number, number | undefined, number>;
  service_millicents: ColumnType<number, number | undefined, number>;
}

/** Failed image requests of one UTC day, engine and error code, for the fleet report. */
export interface ImageFailuresDailyTable {
  day: number;
  engine: string;
  code: string;
  failures: ColumnType<number, number | undefined, number>;
}

export type AdFundsReason = 'purchase' | 'spend' | 'adjustment';

export interface AdFundsLedgerTable {
  id: Generated<number>;
  public_id: string;
  account_id: string;
  delta_millicents: number;
  reason: AdFundsReason;
  reference: string | null;
  /** Set on spend rows: one per campaign and UTC day, grown by each billed impression. */
  spend_key: string | null;
  created_at: EpochMs;
}

/** An agent's share of the impressions of one image on one UTC day. */
export interface EarningsDailyTable {
  account_id: string;
  image_id: string;
  day: number;
  impressions: ColumnType<number, number | undefined, number>;
  earned_millicents: ColumnType<number, number | undefined, number>;
  /** Impressions an operator declared invalid traffic: refunded, no longer in `impressions` or the spend. */
  invalid_impressions: ColumnType<number, number | undefined, number>;
}

export type PayoutStatus = 'requested' | 'paid' | 'rejected';

export interface PayoutsTable {
  id: string;
  account_id: string;
  amount_cents: number;
  status: PayoutStatus;
  reference: string | null;
  created_at: EpochMs;
  paid_at: EpochMs | null;
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
  /** The campaign that paid for this placement; null for house products (and placements made before campaigns). */
  campaign_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The campaign's cpm when placed: each billed impression costs this many milli-cents. */
  cpm_cents: ColumnType<number, number | undefined, number>;
  billed_impressions: ColumnType<number, number | undefined, number>;
  unbilled_impressions: ColumnType<number, number | undefined, number>;
  /** Impressions an operator declared invalid traffic: refunded, no longer in `impressions` or the spend. */
  invalid_impressions: ColumnType<number, number | undefined, number>;
  spend_millicents: ColumnType<number, number | undefined, number>;
}

export interface RateLimitWindowsTable {
  bucket: string;
  window_start: EpochMs;
  hits: number;
}

/** The last impression counted for one viewer (keyed hash of the client address) of one placed image. */
export interface ImpressionViewsTable {
  image_id: string;
  viewer: string;
  counted_at: EpochMs;
}

/**
 * One billed impression of one paid placement: the evidence an invalid-traffic declaration finds (by campaign, day
 * and address) and the agent's share the earnings hold counts as pending until `counted_at` + EARNINGS_HOLD.
 */
export interface ImpressionChargesTable {
  id: Generated<number>;
  campaign_id: string;
  advertiser_id: string;
  placement_id: number;
  image_id: string;
  /** The account that had redeemed the image's claim when it was billed; null: the service kept it all. */
  agent_id: string | null;
  day: number;
  /** Keyed hash of the client address (see server/domain/ads/viewers.ts), never the address itself. */
  address: string;
  cost_millicents: number;
  agent_millicents: number;
  service_millicents: number;
  counted_at: EpochMs;
  /** Set once, by the declaration that found it invalid. */
  invalid_traffic_id: string | null;
}

/** Keys this server makes once and keeps in the database so every node uses the same one. */
export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: EpochMs;
}

export type CheckoutStatus = 'open' | 'complete' | 'expired';
export type GatewayName = 'stripe' | 'simulated';

/** A purchase of credits; `credited_at` is claimed once, by whichever of the Stripe event or the return page comes first. */
export type CheckoutPurpose = 'credits' | 'ad_funds';

export interface CheckoutSessionsTable {
  id: string;
  account_id: string;
  /** Credits bought (purpose `credits`); 0 for ad funds. */
  credits: number;
  purpose: ColumnType<CheckoutPurpose, CheckoutPurpose | undefined, CheckoutPurpose>;
  /** Ad funds bought, in cents (purpose `ad_funds`); 0 for credits. */
  amount_cents: ColumnType<number, number | undefined, number>;
  /** The member who opened it (null before this was kept): the purchase's audit entry names them. */
  buyer_id: ColumnType<string | null, string | null | undefined, string | null>;
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

/** An asynchronous image request: charged when accepted, run by whichever worker leases it. */
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
  /** JSON: the error body, once failed. */
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

export type MailStatus = 'pending' | 'sent' | 'failed';

/** A message waiting to be sent (or sent): written in the transaction that causes it, sent by the mail worker. */
export interface MailOutboxTable {
  id: string;
  to_address: string;
  /** What the message is (verify_email, password_reset, …): for logs and tests, never for sending. */
  kind: string;
  subject: string;
  text_body: string;
  html_body: string;
  /** The message's one call to action, logged when mail is written to files. */
  link: string | null;
  status: MailStatus;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: EpochMs | null;
  locked_until: EpochMs | null;
  last_error: string | null;
  sent_at: EpochMs | null;
  created_at: EpochMs;
}

/**
 * A password reset asked for and not prepared yet (server/domain/security/password-resets.ts): due when
 * `claimed_until` has passed (at once, or when a preparing process's lease runs out).
 */
export interface PasswordResetRequestsTable {
  id: string;
  email: string;
  requested_at: EpochMs;
  claimed_until: EpochMs;
}

/** The security state of whoever signs in, keyed by `user_id`. */
export interface UserSecurityTable {
  user_id: string;
  email_verified_at: ColumnType<EpochMs | null, EpochMs | null | undefined, EpochMs | null>;
  /** Base32 TOTP secret, set once two-factor sign-in is enabled. */
  totp_secret: ColumnType<string | null, string | null | undefined, string | null>;
  /** A secret from setup that waits for its first code. */
  totp_pending_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_enabled_at: ColumnType<EpochMs | null, EpochMs | null | undefined, EpochMs | null>;
  /** The 30-second step of the last code accepted: a code is accepted once. */
  totp_last_step: ColumnType<number | null, number | null | undefined, number | null>;
}

export type UserTokenPurpose = 'verify_email' | 'password_reset';

/** Single-use links e-mailed to a user, kept only as SHA-256 hashes. */
export interface UserTokensTable {
  token_hash: string;
  user_id: string;
  purpose: UserTokenPurpose;
  email: string;
  expires_at: EpochMs;
  used_at: EpochMs | null;
  created_at: EpochMs;
}

export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  used_at: EpochMs | null;
}

export type AuditActorType = 'user' | 'key' | 'operator';

export interface AuditLogTable {
  id: Generated<number>;
  /** `aud_…`: what clients see and page by. */
  public_id: string;
  account_id: string;
  action: string;
  actor_type: AuditActorType;
  actor_id: string;
  actor_label: string;
  ip: string | null;
  user_agent: string | null;
  target: string | null;
  /** JSON object. */
  details: string;
  created_at: EpochMs;
}

export interface Database {
  users: UsersTable;
  memberships: MembershipsTable;
  invites: InvitesTable;
  mail_outbox: MailOutboxTable;
  password_reset_requests: PasswordResetRequestsTable;
  user_security: UserSecurityTable;
  user_tokens: UserTokensTable;
  recovery_codes: RecoveryCodesTable;
  audit_log: AuditLogTable;
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
  campaigns: CampaignsTable;
  campaign_products: CampaignProductsTable;
  campaign_daily: CampaignDailyTable;
  image_failures_daily: ImageFailuresDailyTable;
  ad_funds_ledger: AdFundsLedgerTable;
  earnings_daily: EarningsDailyTable;
  payouts: PayoutsTable;
  idempotency_keys: IdempotencyKeysTable;
  image_operation_leases: ImageOperationLeasesTable;
  rate_limit_windows: RateLimitWindowsTable;
  impression_views: ImpressionViewsTable;
  impression_charges: ImpressionChargesTable;
  server_secrets: ServerSecretsTable;
  usage_daily: UsageDailyTable;
  jobs: JobsTable;
  job_inputs: JobInputsTable;
  staging_settings: StagingSettingsTable;
}

export type Account = Selectable<AccountsTable>;
export type User = Selectable<UsersTable>;
export type Invite = Selectable<InvitesTable>;
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
export type Campaign = Selectable<CampaignsTable>;
export type AdFundsEntry = Selectable<AdFundsLedgerTable>;
export type Payout = Selectable<PayoutsTable>;
export type CheckoutSession = Selectable<CheckoutSessionsTable>;
export type TopUpAttempt = Selectable<TopUpAttemptsTable>;
export type Job = Selectable<JobsTable>;
export type MailMessage = Selectable<MailOutboxTable>;
export type AuditEntry = Selectable<AuditLogTable>;
