import { describe, expect, it } from 'vitest';
import { decodeColumns, encodeBlock } from '../../../../lib/search/format/blocks.ts';
import { BLOCK_SETTLE_MS, BlockCache, type ListedBlock } from '../../../../lib/search/read/block-cache.ts';

/** A block of the ids `ids`, each tf 1 and length 3. */
const columnsOf = (ids: number[]) => decodeColumns(encodeBlock(ids.map((id) => ({ id, tf: 1, dl: 3 }))));
const listed = (after: number, to: number, max = 500_000): ListedBlock => ({
  term: 'ibex',
  sk: `K#${String(to).padStart(16, '0')}`,
  after,
  to,
  max,
});

/** A cache on a clock the test moves, whose version has settled, holding the block of ids 2–10 (after 0, to 10). */
function settled() {
  const clock = { now: 0 };
  const cache = new BlockCache({ now: () => clock.now });
  cache.observe(7);
  clock.now = BLOCK_SETTLE_MS;
  cache.keep(listed(0, 10), columnsOf([2, 5, 10]), clock.now);
  return { cache, clock };
}

describe('BlockCache', () => {
  it('gives a kept block back while the directory lists it as it was read, and the version holds', () => {
    const { cache, clock } = settled();
    clock.now = 3_600_000;
    expect(cache.get(listed(0, 10))?.ids).toStrictEqual(columnsOf([2, 5, 10]).ids);
    cache.observe(7);
    expect(cache.get(listed(0, 10))).toBeDefined();
  });

  it('drops a block whose range the directory has cut below it (a split), or whose bound it lists changed', () => {
    // The same bound: only the range shows the split.
    expect(settled().cache.get(listed(4, 10))).toBeUndefined();
    expect(settled().cache.get(listed(1, 10))).toBeDefined();
    expect(settled().cache.get(listed(0, 10, 600_000))).toBeUndefined();
    const { cache } = settled();
    cache.get(listed(4, 10));
    // Dropped, not only passed over.
    expect(cache.get(listed(0, 10))).toBeUndefined();
  });

  it('empties at a new index version', () => {
    const { cache } = settled();
    cache.observe(8);
    expect(cache.get(listed(0, 10))).toBeUndefined();
  });

  it('keeps a block read within BLOCK_SETTLE_MS of the version’s first sighting only until then', () => {
    const clock = { now: 100 };
    const cache = new BlockCache({ now: () => clock.now });
    cache.observe(7);
    cache.keep(listed(0, 10), columnsOf([2]), 100 + BLOCK_SETTLE_MS - 1);
    clock.now = 100 + BLOCK_SETTLE_MS - 1;
    expect(cache.get(listed(0, 10))).toBeDefined();
    clock.now = 100 + BLOCK_SETTLE_MS;
    expect(cache.get(listed(0, 10))).toBeUndefined();
  });

  it('holds `limit` blocks, the least recently used dropped first', () => {
    const cache = new BlockCache({ limit: 2, now: () => 5_000 });
    cache.observe(1);
    for (const to of [10, 20, 30]) cache.keep(listed(to - 10, to), columnsOf([to]), 5_000);
    expect(cache.get(listed(0, 10))).toBeUndefined();
    expect(cache.get(listed(10, 20))).toBeDefined();
    expect(cache.get(listed(20, 30))).toBeDefined();
  });
});
