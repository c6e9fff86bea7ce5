import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 text (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Every opaque id in Roomstage comes from here, prefixed by what it names. */
export const ID_PREFIXES = {
  account: 'acc',
  event: 'evt',
  delivery: 'whd',
  image: 'img',
  claim: 'clm',
  ledger: 'txn',
  hold: 'hld',
  topUp: 'tpu',
  simulatedCheckout: 'cs_sim',
  simulatedPayment: 'pi_sim',
  simulatedCard: 'pm_sim',
  simulatedRefund: 're_sim',
  job: 'job',
  jobLease: 'jwk',
  product: 'prd',
  campaign: 'cmp',
  adFunds: 'aft',
  payout: 'po',
  mail: 'msg',
  audit: 'aud',
  invite: 'inv',
  invalidTraffic: 'ivt',
  passwordReset: 'pwr',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomBase62(22)}`;
}
