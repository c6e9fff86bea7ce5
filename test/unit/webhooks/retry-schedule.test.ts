import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/env.js';
import { maxAttempts, nextAfterFailure, withJitter } from '../../../server/domain/webhooks/delivery/retry-schedule.js';

describe('retry schedule', () => {
  const contract = loadConfig({} as NodeJS.ProcessEnv).webhookRetryDelaysMs;

  it('defaults to 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h', () => {
    expect(contract).toEqual([10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000]);
    expect(maxAttempts(contract)).toBe(9);
  });

  it('waits the n-th delay after the n-th failed attempt, then gives up', () => {
    const noJitter = () => 0.5;
    expect(nextAfterFailure(1, contract, noJitter)).toEqual({ retry: true, delayMs: 10_000 });
    expect(nextAfterFailure(2, contract, noJitter)).toEqual({ retry: true, delayMs: 60_000 });
    expect(nextAfterFailure(8, contract, noJitter)).toEqual({ retry: true, delayMs: 86_400_000 });
    expect(nextAfterFailure(9, contract, noJitter)).toEqual({ retry: false });
    expect(nextAfterFailure(1, [], noJitter)).toEqual({ retry: false });
  });

  it('spreads retries by ±10 %', () => {
    expect(withJitter(10_000, () => 0)).toBe(9_000);
    expect(withJitter(10_000, () => 0.999999)).toBe(11_000);
    const samples = Array.from({ length: 200 }, () => withJitter(60_000));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(54_000);
    expect(Math.max(...samples)).toBeLessThanOrEqual(66_000);
    expect(new Set(samples).size).toBeGreaterThan(100);
  });
});
