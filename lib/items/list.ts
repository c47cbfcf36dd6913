// A list page over the shards (keys.ts): the items after the cursor's id, in id order, as a merge of Queries. A block
// of ids lives on one partition key, so the ids a full page needs lie in one or two blocks: round 1 reads those
// blocks (one bounded Query each, in parallel, each limited to the ids it would hold were it dense). A page not full
// then reads the counter (consistent), the highest id there can be: past it, the page is the last. Only where blocks
// are sparse (deleted items, ids a container leased and never used) does a round 2 read the
// rest of the range up to the counter: one Query per shard that holds a block of it, each with the page's Limit,
// merged up to the lowest id where a truncated shard stopped. Every item that exists throughout is found; none twice.
import { blockOf, blockPk, blockRange, ITEM_SHARDS, itemIdOf } from './keys.ts';

type TableRecord = Record<string, unknown>;

/** One Query: the records of partition `pk` with ids in [from, to] in id order, at most `limit` of them. */
export type RangeQuery = (
  pk: string,
  from: number,
  to: number,
  limit: number,
) => Promise<{ records: TableRecord[]; truncated: boolean }>;

/** The records with ids after `afterId`: at least `need` of them unless fewer exist, in id order. */
export interface Run {
  records: TableRecord[];
  /** Every record with an id up to this one is in `records` (Infinity when the range was read to its end). */
  complete: number;
}

const idOf = (record: TableRecord): number => {
  const id = itemIdOf({ pk: String(record.pk), sk: String(record.sk) });
  if (id === undefined) throw new Error(`not an item record: ${String(record.pk)}/${String(record.sk)}`);
  return id;
};

/** The records after `afterId`: `need` of them (or all there are), in id order. */
export async function readShards(
  query: RangeQuery,
  readCounter: () => Promise<number>,
  afterId: number,
  need: number,
): Promise<Run> {
  const first = afterId + 1;
  const blocks = [blockOf(first)];
  if (blockOf(first + need - 1) !== blocks[0]) blocks.push(blockOf(first + need - 1));
  const ranges = blocks.map((block) => ({
    pk: blockPk(block),
    from: Math.max(first, blockRange(block).first),
    to: blockRange(block).last,
  }));
  const records = await readDenseBlocks(query, ranges, first, need);
  if (records.length >= need)
    return { records: records.slice(0, need), complete: idOf(records[need - 1] ?? {}) };
  const counter = await readCounter();
  const from = (ranges.at(-1)?.to ?? 0) + 1;
  if (from > counter) return { records, complete: Number.POSITIVE_INFINITY };
  const rest = await readSparseRest(query, from, counter, need - records.length);
  return { records: [...records, ...rest.records], complete: rest.complete };
}

/** One partition's part of a page: the ids [from, to] of one block on partition `pk`. */
interface BlockRange {
  pk: string;
  from: number;
  to: number;
}

/**
 * Round 1: the blocks a full page of dense ids lies in, each asked for the ids it would hold, in parallel. The
 * records in id order, stopping once `need` are found.
 */
async function readDenseBlocks(
  query: RangeQuery,
  ranges: readonly BlockRange[],
  first: number,
  need: number,
): Promise<TableRecord[]> {
  const replies = ranges.map(({ pk, from, to }) =>
    query(pk, from, to, Math.min(need, to - first + 1) - (from - first)),
  );
  const records: TableRecord[] = [];
  for (const [i, range] of ranges.entries()) {
    let reply = await (replies[i] as ReturnType<RangeQuery>);
    for (;;) {
      records.push(...reply.records);
      if (records.length >= need) return records;
      const lastRecord = reply.records.at(-1);
      if (!reply.truncated || lastRecord === undefined) break;
      const last = idOf(lastRecord);
      if (last >= range.to) break;
      // Fewer ids here than a dense block holds before the limit: read on in this block.
      reply = await query(range.pk, last + 1, range.to, need - records.length);
    }
  }
  return records;
}

/**
 * Round 2 (sparse blocks): the ids [from, counter], one Query per shard that holds a block of them, each with the
 * page's `left`; merged up to the lowest id where a truncated shard stopped.
 */
async function readSparseRest(query: RangeQuery, from: number, counter: number, left: number): Promise<Run> {
  const firstBlock = blockOf(from);
  const shards = Math.min(ITEM_SHARDS, blockOf(counter) - firstBlock + 1);
  const rest = await Promise.all(
    Array.from({ length: shards }, (_, i) => query(blockPk(firstBlock + i), from, counter, left)),
  );
  let complete = Number.POSITIVE_INFINITY;
  for (const reply of rest)
    if (reply.truncated) complete = Math.min(complete, idOf(reply.records.at(-1) ?? {}));
  const merged = rest
    .flatMap((reply) => reply.records)
    .filter((record) => idOf(record) <= complete)
    .sort((a, b) => idOf(a) - idOf(b));
  return {
    records: merged.slice(0, left),
    complete: merged.length > left ? idOf(merged[left - 1] ?? {}) : complete,
  };
}
