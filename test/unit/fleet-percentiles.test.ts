import { describe, expect, it } from 'vitest';
import { ENGINE_MS_BUCKETS, histogramQuantile } from '../../server/domain/operators/fleet.js';

/** Counts per bucket for these timings, as the fleet query makes them in SQL. */
function histogramOf(timings: number[]): number[] {
  const counts = new Array<number>(ENGINE_MS_BUCKETS.length + 1).fill(0);
  for (const ms of timings) {
    const index = ENGINE_MS_BUCKETS.findIndex((upper) => ms <= upper);
    const at = index === -1 ? ENGINE_MS_BUCKETS.length : index;
    counts[at] = (counts[at] ?? 0) + 1;
  }
  return counts;
}

describe('the fleet report’s engine percentiles', () => {
  it('is null without any timing', () => {
    expect(histogramQuantile(histogramOf([]), 0.5)).toBeNull();
  });

  it('lands in the bucket of the true percentile, interpolated inside it', () => {
    // 100 calls: 90 between 1 and 2.5 s, 10 between 5 and 10 s.
    const timings = [
      ...Array.from({ length: 90 }, (_, i) => 1_001 + i * 16),
      ...Array.from({ length: 10 }, (_, i) => 5_500 + i * 400),
    ];
    const p50 = histogramQuantile(histogramOf(timings), 0.5) as number;
    const p95 = histogramQuantile(histogramOf(timings), 0.95) as number;
    expect(p50).toBeGreaterThan(1_000);
    expect(p50).toBeLessThanOrEqual(2_500);
    expect(p95).toBeGreaterThan(5_000);
    expect(p95).toBeLessThanOrEqual(10_000);
  });

  it('says at least the last bound for calls slower than every bucket', () => {
    expect(histogramQuantile(histogramOf([200_000, 300_000]), 0.95)).toBe(ENGINE_MS_BUCKETS.at(-1));
  });
});
