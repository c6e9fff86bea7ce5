import type { DisclosureProfile } from '../../../db/schema.js';
import type { Db } from '../../../db/client.js';
import type { Clock } from '../../clock.js';
import type { AutoTopUp } from '../billing/auto-topup.js';
import type { NetworkPolicy } from '../../outbound/network-guard.js';
import type { IdempotencyClaim } from '../idempotency/requests.js';
import type { ImageEngine } from '../../imaging/engine.js';
import type { ImageStorage } from '../../storage/storage.js';

/** What the image operations need from the process; routers pass the matching parts of `Services`. */
export interface ImagingDeps {
  db: Db;
  engine: ImageEngine;
  storage: ImageStorage;
  clock: Clock;
  network: NetworkPolicy;
  /** CHARGE_HOLD_TIMEOUT: how long a charged request may go without renewing its hold before it counts as dead. */
  chargeHoldTimeoutMs: number;
  /** Tops the balance up when a charge leaves it below the threshold or cannot be covered. */
  autoTopUp: AutoTopUp;
  /** PUBLIC_BASE_URL: the base of each original's page (`/o/<token>`). */
  publicBaseUrl: string;
  /** FREE_RERENDERS: re-renders per image that cost nothing within 24 h of its creation. */
  freeRerenders: number;
  /** FIDELITY_MIN: the least fidelity score an engine's output needs to be kept (../../imaging/fidelity/). */
  fidelityMin: number;
}

/** The API key a request came with, and its account (the API user). */
export interface ApiCaller {
  accountId: string;
  keyId: number;
  /** The request's Idempotency-Key record, if it came with one: a refunded hold frees it. */
  idempotency?: IdempotencyClaim | null;
  /** The account's default disclosure profile, when the credential check already read it. */
  defaultDisclosure?: DisclosureProfile;
}
