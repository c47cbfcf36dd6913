import { describe, expect, it } from 'vitest';
import { estimateTotal, Watermark } from '../../../../lib/search/operations/progress.ts';
import { formatProgress, progressPrinter } from '../../../../scripts/progress.ts';

describe('the reindex watermark', () => {
  it('moves only past pages that finished with every page before them', () => {
    const mark = new Watermark(10, 7);
    const a = mark.start(20, 5);
    const b = mark.start(30, 4);
    const c = mark.start(40, 6);
    expect(mark.finish(b)).toBe(false);
    expect(mark.finish(c)).toBe(false);
    expect([mark.throughId, mark.items]).toStrictEqual([10, 7]);
    expect(mark.finish(a)).toBe(true);
    expect([mark.throughId, mark.items]).toStrictEqual([40, 22]);
    const d = mark.start(50, 1);
    const e = mark.start(60, 1);
    expect(mark.finish(d)).toBe(true);
    expect([mark.throughId, mark.items]).toStrictEqual([50, 23]);
    expect(() => mark.finish(e + 1)).toThrow();
  });
});

describe('reindex progress', () => {
  it('estimates the total from the id counter, thinned by the share of listed ids that still have an item', () => {
    // Nothing listed yet: every id up to the counter.
    expect(estimateTotal({ counter: 1000, startId: 0, doneBefore: 0, listed: 0, lastListedId: 0 })).toBe(
      1000,
    );
    // Half the ids listed so far had an item: half of the ids still ahead will.
    expect(estimateTotal({ counter: 1000, startId: 0, doneBefore: 0, listed: 100, lastListedId: 200 })).toBe(
      500,
    );
    // Resumed after id 400 with 300 done before; counter passed during the run: never below what is listed.
    expect(
      estimateTotal({ counter: 500, startId: 400, doneBefore: 300, listed: 150, lastListedId: 550 }),
    ).toBe(450);
  });

  it('says items done, items per second and time left', () => {
    expect(formatProgress({ done: 1200, total: 5000, rate: 310.4, leftMs: 12_300, final: false })).toBe(
      'reindex: 1,200 of ~5,000 items (24%), 310 items/s, ~12s left',
    );
    expect(formatProgress({ done: 10, total: 100_000, rate: 20, leftMs: 3_725_000, final: false })).toMatch(
      /~1h02m left$/,
    );
    expect(formatProgress({ done: 0, total: 50, rate: 0, leftMs: undefined, final: false })).toMatch(
      /0 items\/s, time left unknown$/,
    );
    expect(formatProgress({ done: 50, total: 40, rate: 25, leftMs: 0, final: true })).toBe(
      'reindex: 50 of ~50 items (100%), 25 items/s, done',
    );
  });

  it('prints at most once a second, and always the last line', () => {
    let clock = 0;
    const lines: string[] = [];
    const print = progressPrinter({ write: (line) => lines.push(line), now: () => clock });
    const at = (ms: number, done: number, final = false) => {
      clock = ms;
      print({ done, total: 10, rate: 1, leftMs: 1000, final });
    };
    at(0, 1);
    at(400, 2);
    at(999, 3);
    at(1000, 4);
    at(1500, 5);
    at(1600, 6, true);
    expect(lines.map((line) => Number(/: (\d+) of/.exec(line)?.[1]))).toStrictEqual([1, 4, 6]);
  });
});
