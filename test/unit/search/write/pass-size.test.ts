import { describe, expect, it } from 'vitest';
import { PASS_SHARE, PassSize } from '../../../../lib/search/write/pass-size.ts';

// A Lambda invocation of 300 s, the last 15 s fenced: a pass is sized to take 0.4 × 285 s = 114 s.
const WRITABLE = 285_000;

describe('the size of a pass', () => {
  it('takes everything until a pass has been timed, and while passes are fast', () => {
    const passes = new PassSize();
    expect(passes.take(1_000, WRITABLE)).toBe(1_000);
    passes.finished(1_000, 1_000);
    expect(passes.take(1_000, WRITABLE)).toBe(1_000);
    expect(PASS_SHARE * WRITABLE).toBe(114_000);
  });

  it("takes what fits 114 s at the last pass's pace, shrinking and growing with it", () => {
    const passes = new PassSize();
    passes.finished(400, 228_000);
    expect(passes.take(1_000, WRITABLE)).toBe(200);
    passes.finished(200, 38_000);
    expect(passes.take(1_000, WRITABLE)).toBe(600);
    expect(passes.take(50, WRITABLE)).toBe(50);
  });

  it('takes what fits the time the writer has left, and everything when no deadline bounds it', () => {
    const passes = new PassSize();
    passes.finished(400, 228_000);
    // Half the time left: half the items.
    expect(passes.take(1_000, WRITABLE / 2)).toBe(100);
    // Past the deadline, one item at a time.
    expect(passes.take(1_000, -1)).toBe(1);
    // No deadline (a pass renews its lease, so only an invocation's end bounds it): all of them.
    expect(passes.take(1_000, Number.POSITIVE_INFINITY)).toBe(1_000);
  });

  it('stops a pass whose write-ahead went too slowly for its postings to land, and sizes the next to fit', () => {
    const passes = new PassSize();
    // 100 items written ahead 10 at a time in 40 s, 20 s in: their 1,000 homes would take 400 s more, past 285 s.
    const slow = { elapsedMs: 60_000, writeAheadMs: 40_000, writableMs: WRITABLE };
    expect(passes.fits({ items: 100, homes: 1_000, concurrency: 10 }, slow)).toBe(false);
    expect(passes.take(1_000, WRITABLE)).toBe(24);
    // Fewer items than go at once took one wave: 110 homes take 11 waves of 10 s, and the pass lands (112 s in all).
    const quick = { elapsedMs: 2_000, writeAheadMs: 10_000, writableMs: WRITABLE };
    expect(passes.fits({ items: 5, homes: 110, concurrency: 10 }, quick)).toBe(true);
    expect(passes.take(1_000, WRITABLE)).toBe(24);
    // A failure after that halves only what is larger than the estimate.
    passes.failed(100);
    expect(passes.take(1_000, WRITABLE)).toBe(24);
    // With no deadline, a pass always fits.
    const unbounded = { ...slow, writableMs: Number.POSITIVE_INFINITY };
    expect(new PassSize().fits({ items: 100, homes: 1_000, concurrency: 10 }, unbounded)).toBe(true);
  });

  it('halves after a pass that failed, down to one item', () => {
    const passes = new PassSize();
    passes.failed(1_000);
    expect(passes.take(1_000, WRITABLE)).toBe(500);
    expect(passes.take(1_000, Number.POSITIVE_INFINITY)).toBe(500);
    passes.failed(1);
    expect(passes.take(1_000, WRITABLE)).toBe(1);
    // A pass in which nothing got done (every item held by another writer) says nothing of the pace.
    passes.finished(0, 5_000);
    expect(passes.take(1_000, WRITABLE)).toBe(1);
  });
});
