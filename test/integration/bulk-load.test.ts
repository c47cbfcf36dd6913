import { describe, it } from 'vitest';
import { createItemRepository } from '../../lib/items/repository.ts';
import { BLOCK_CAPACITY } from '../../lib/search/format/blocks.ts';
import { STATS_PK, statsKey, sumCounts } from '../../lib/search/format/keys.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { bulkLoad, syntheticItem } from '../../scripts/bench/synthetic.ts';
import { scanAll, type Table } from '../support/index-state.ts';
import { freshTable } from '../support/stack.ts';

/**
 * Every record of a table, each with its attributes in name order, in a stable order; the counts' parts (each commit
 * adds to one at random) as one record, their sum, in the first part's key.
 */
const records = async (table: Table) => {
  const rows = await scanAll(table);
  const isPart = (r: Record<string, unknown>) => r.pk === STATS_PK && String(r.sk).startsWith('INDEX');
  const counts = { ...statsKey(0), ...sumCounts(rows.filter(isPart)) };
  return [...rows.filter((r) => !isPart(r)), counts]
    .map((r) => JSON.stringify(r, Object.keys(r).sort()))
    .sort();
};

// The benchmarks' collections are bulk-loaded (scripts/bench/synthetic.ts) with the records the posting writer leaves
// after appends (appendedTerm); they must be exactly those the repository and the indexer write, item by item.
const ITEMS = 20;

describe("the benchmark's bulk loader", () => {
  // The two block sizes at once, and in each the bulk load beside the items' own writes: each waits on DynamoDB
  // Local's replies, not on the CPU.
  it.concurrent.for([BLOCK_CAPACITY, 4])(
    'writes the records the repository and the indexer write (blocks of %i)',
    // Twenty items written and indexed one at a time in each (enough for sealed blocks and directory pages at
    // blocks of 4, checked below): 7-14 s on a quiet machine, longer under a suite's load.
    { timeout: 180_000 },
    async (blockCapacity, { expect }) => {
      const timestamp = '2026-01-01T00:00:00.000Z';
      const [real, bulk] = [await freshTable(), await freshTable()];
      // One id a lease: the counter then ends at the item count, as the bulk loader writes it (a larger lease's
      // unused ids would move it past, by how fast the leases went).
      const items = createItemRepository({ ...real, now: () => new Date(timestamp), maxLease: 1 });
      const indexer = createIndexer({ ...real, items, blockCapacity });
      const loaded = bulkLoad(bulk.client, bulk.tableName, ITEMS, { timestamp, blockCapacity });
      for (let id = 1; id <= ITEMS; id++) {
        const {
          id: _id,
          createdAt: _c,
          updatedAt: _u,
          version: _v,
          ...fields
        } = syntheticItem(id, timestamp);
        expect((await items.create(fields)).id).toBe(id);
        await indexer.reindexItem(id);
      }
      await loaded;
      const written = await records(real);
      expect(await records(bulk)).toStrictEqual(written);
      // Not vacuous: at blocks of 4, tails sealed blocks (sealed blocks and directory pages are among the records).
      if (blockCapacity === 4) {
        expect(written.some((r) => r.includes('"sk":"K#0'))).toBe(true);
        expect(written.some((r) => r.includes('"sk":"X#'))).toBe(true);
      }
    },
  );
});
