import { describe, expect, it } from 'vitest';
import { PASS_SHARE, PassSize } from '../../../../lib/search/write/pass-size.ts';

// The service's lease: 90 s, the last 15 s fenced, so a pass is sized to take 0.4 × 75 s = 30 s.
const size = () => new PassSize({ leaseMs: 90_000, fenceMs: 15_000 });

describe('the size of a pass', () => {
  it('takes everything until a pass has been timed, and while passes are fast', () => {
    const passes = size();
    expect(passes.take(1_000)).toBe(1_000);
    passes.finished(1_000, 1_000);
    expect(passes.take(1_000)).toBe(1_000);
    expect(PASS_SHARE * 75_000).toBe(30_000);
  });

  it("takes what fits 30 s at the last pass's pace, shrinking and growing with it", () => {
    const passes = size();
    passes.finished(400, 60_000);
    expect(passes.take(1_000)).toBe(200);
    passes.finished(200, 10_000);
    expect(passes.take(1_000)).toBe(600);
    expect(passes.take(50)).toBe(50);
  });

  it('stops a pass whose write-ahead went too slowly for its postings to land, and sizes the next to fit', () => {
    const passes = size();
    // 100 items written ahead 10 at a time in 10 s, 5 s in: their 1,000 homes would take 100 s more, past the 75 s.
    expect(passes.fits({ items: 100, homes: 1_000, concurrency: 10 }, 15_000, 10_000)).toBe(false);
    expect(passes.take(1_000)).toBe(26);
    // Fewer items than go at once took one wave: 260 homes take 26 waves of 1 s, and the pass lands (27 s in all).
    expect(passes.fits({ items: 5, homes: 260, concurrency: 10 }, 1_000, 1_000)).toBe(true);
    expect(passes.take(1_000)).toBe(26);
    // A failure after that halves only what is larger than the estimate.
    passes.failed(100);
    expect(passes.take(1_000)).toBe(26);
  });

  it('halves after a pass that failed, down to one item', () => {
    const passes = size();
    passes.failed(1_000);
    expect(passes.take(1_000)).toBe(500);
    passes.failed(1);
    expect(passes.take(1_000)).toBe(1);
    // A pass in which nothing got done (every item held by another writer) says nothing of the pace.
    passes.finished(0, 5_000);
    expect(passes.take(1_000)).toBe(1);
  });
});
