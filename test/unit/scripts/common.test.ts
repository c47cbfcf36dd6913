import { describe, expect, it } from 'vitest';
import { pairedRatio, quantile } from '../../../scripts/bench/common.ts';

describe("bench:options' query-by-query ratio", () => {
  // Three queries of very different cost, three passes, in interleave's order (a pass's queries, then the next pass).
  const plain = [1, 10, 100, 1.2, 11, 90, 0.9, 12, 110];

  it('is the geometric mean of each query against itself, whatever the queries cost', () => {
    const twice = plain.map((ms) => 2 * ms);
    expect(pairedRatio(twice, plain, 3)).toBeCloseTo(2, 12);
    // Only the cheapest query slower, 8 times: the mean of the logs is log(8) / 3.
    const cheapSlower = plain.map((ms, i) => (i % 3 === 0 ? 8 * ms : ms));
    expect(pairedRatio(cheapSlower, plain, 3)).toBeCloseTo(2, 12);
  });

  it('does not follow the p50, which sits on one query', () => {
    // The middle query 3 times slower, the others the same: the p50 moves by 3 ×, the paired ratio by 3^(1/3).
    const middleSlower = plain.map((ms, i) => (i % 3 === 1 ? 3 * ms : ms));
    expect(quantile(middleSlower, 0.5) / quantile(plain, 0.5)).toBeGreaterThan(2.5);
    expect(pairedRatio(middleSlower, plain, 3)).toBeCloseTo(Math.cbrt(3), 12);
  });
});
