/** Ad money is kept in milli-cents (1/1000 of a US cent): an impression at cpm `n` cents costs exactly `n` of them. */
export const MILLICENTS_PER_CENT = 1000;

export const DAY_MS = 86_400_000;

export function centsToMillicents(cents: number): number {
  return cents * MILLICENTS_PER_CENT;
}

/** Shown in whole cents, rounded down: what is shown is never more than what is there. */
export function millicentsToCents(millicents: number): number {
  return Math.floor(Number(millicents) / MILLICENTS_PER_CENT);
}

/** The cost of one impression at `cpmCents` per thousand. */
export function impressionCost(cpmCents: number): number {
  return cpmCents;
}

/** Half to the agent, the rest (the odd milli-cent included) to the service. */
export function splitRevenue(millicents: number): { agent: number; service: number } {
  const agent = Math.floor(millicents / 2);
  return { agent, service: millicents - agent };
}

/** Days since 1970-01-01 (UTC). */
export function utcDay(at: number): number {
  return Math.floor(at / DAY_MS);
}

export function dayToDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}
