import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import { BLOCK_CAPACITY, decodeColumns, type PostingColumns } from '../format/blocks.ts';
import type { BlockCache, ListedBlock } from './block-cache.ts';
import { EMPTY } from './piece-table.ts';
import type { Block, TermList } from './pieces.ts';

/** What a block read by key costs (eventually consistent, under 4 KB), and a full block's size in a range read. */
const KEY_COST = 0.5;
const BLOCK_BYTES = BLOCK_CAPACITY * 3 + 60;
const runCost = (run: readonly Block[]): number =>
  run.length <= 1
    ? KEY_COST * run.length
    : Math.ceil((((run.at(-1)?.index ?? 0) - (run[0]?.index ?? 0) + 1) * BLOCK_BYTES) / 4096) * 0.5;

/** Likely-needed blocks a range read takes along, per wanted block. */
const ALONG_PER_BLOCK = 4;
/** A term's likely blocks are all read by range once its reads so far cost half of what that costs (ski rental). */
const BUY_FACTOR = 2;

/**
 * A query's block budget: sealed blocks it may still read (counted as reads by key, a range read counting what it
 * costs), and whether a round left a piece for want of it (*starved*).
 */
export class ReadBudget {
  /** Blocks read so far. */
  read = 0;
  /** Whether this round left a piece over the budget. */
  #starved = false;

  #limit: number;
  /** The larger limit while a filter keeps rejecting candidates. */
  readonly #filterLimit: number;

  constructor(limit: number, filterLimit: number) {
    this.#limit = limit;
    this.#filterLimit = filterLimit;
  }

  /** A new round: not starved yet. */
  startRound(): void {
    this.#starved = false;
  }

  /** Whether a round that has asked for `asked` blocks may ask for `more`; marks the round starved when not. */
  allows(asked: number, more: number): boolean {
    if (this.read + asked + more <= this.#limit) return true;
    this.#starved = true;
    return false;
  }

  /** Counts what a fetch cost. */
  spend(cost: number): void {
    this.read += cost;
  }

  /** Blocks left to read. */
  left(): number {
    return this.#limit - this.read;
  }

  /** Raises the limit for a rejecting filter; false when it is raised already and a round was starved under it. */
  widen(): boolean {
    if (this.#starved && this.#limit >= this.#filterLimit) return false;
    this.#limit = Math.max(this.#limit, this.#filterLimit);
    return true;
  }
}

/** What a fetch may spend beyond its wanted blocks, and the blocks it may take along. */
interface Allowance {
  spare: number;
  along: number;
}

/**
 * Reads a query's blocks (eventually consistent, as every query read); a block gone since the directory is empty. A
 * term's wanted blocks that lie close together are read by one Query over their range, the blocks between included (a
 * Query costs its bytes, 4 KB a half unit, where each item read by key costs a half unit: about five compact blocks
 * for the price of one); a block alone is read by key with the others.
 */
export class BlockReader {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  /** Wanted blocks of one term at most this many places apart are read by one range (0: each by key). */
  readonly #rangeGap: number;
  readonly #lists: readonly TermList[];
  /** A block's postings as the query scores them (the shrunk set's lengths and cuts). */
  readonly #atLengths: (columns: PostingColumns, term: string) => PostingColumns;
  /** The blocks the container keeps, if it keeps any. */
  readonly #cache: BlockCache | undefined;

  constructor(options: {
    client: DynamoDBDocumentClient;
    tableName: string;
    rangeGap: number;
    lists: readonly TermList[];
    atLengths: (columns: PostingColumns, term: string) => PostingColumns;
    cache?: BlockCache | undefined;
  }) {
    this.#client = options.client;
    this.#tableName = options.tableName;
    this.#rangeGap = options.rangeGap;
    this.#lists = options.lists;
    this.#atLengths = options.atLengths;
    this.#cache = options.cache;
  }

  /**
   * Reads `blocks` (and what lies beside them of `likely`), within `budget`, those the container keeps from its
   * cache; returns what it cost in reads by key.
   */
  async fetch(blocks: Block[], likely: Set<Block>, budget: number): Promise<number> {
    const unread = blocks.filter((block) => !this.#fromCache(block));
    const around = new Set([...likely].filter((block) => !block.postings && !this.#fromCache(block)));
    if (unread.length === 0) return 0;
    const { single, ranges } = this.#plan(unread, around, budget);
    const readAt = this.#cache?.now() ?? 0;
    await Promise.all([
      this.#readByKey(single, readAt),
      ...ranges.map((run) => this.#readRange(run, readAt)),
    ]);
    // What the reads cost, counted in reads by key (a range of up to five compact blocks counts as one).
    return single.length + ranges.reduce((sum, run) => sum + runCost(run) / KEY_COST, 0);
  }

  /** The blocks read by key, and the runs read by range. */
  #plan(blocks: Block[], likely: Set<Block>, budget: number) {
    const wanted = new Set(blocks);
    const spare = budget - blocks.length;
    // Blocks taken along: at most a few per wanted block (what fills the 4 KB its own read is charged for anyway).
    const allowance: Allowance = { spare, along: Math.min(spare, ALONG_PER_BLOCK * blocks.length) };
    const single: Block[] = [];
    const ranges: Block[][] = [];
    for (const list of this.#lists)
      for (const run of this.#runsFor(list, wanted, likely, allowance)) {
        list.spent += runCost(run);
        if (run.length > 1) ranges.push(run);
        else single.push(...run);
      }
    return { single, ranges };
  }

  /**
   * A term's runs to read. Ski rental: once the term's reads have cost half of what reading all its likely blocks by
   * range costs, they are read at once (a query of common words reads most of their lists; one of a common word,
   * little); until then a run is read whole where what it takes along fits the allowance.
   */
  #runsFor(list: TermList, wanted: Set<Block>, likely: Set<Block>, allowance: Allowance): Block[][] {
    const asked = list.blocks.filter((block) => wanted.has(block));
    if (asked.length === 0) return [];
    const near = list.blocks.filter(
      (block) => wanted.has(block) || (this.#rangeGap > 0 && likely.has(block)),
    );
    const all = this.#runsOf(near);
    const buy = all.reduce((sum, run) => sum + runCost(run), 0);
    if (
      (list.spent + asked.length * KEY_COST) * BUY_FACTOR >= buy &&
      buy / KEY_COST - asked.length <= allowance.spare
    ) {
      allowance.spare -= buy / KEY_COST - asked.length;
      return all;
    }
    const runs: Block[][] = [];
    for (const run of all) {
      const count = run.filter((block) => wanted.has(block)).length;
      const extra = runCost(run) / KEY_COST - count;
      if (count > 0 && run.length > 1 && allowance.along >= run.length - count && extra <= allowance.spare) {
        allowance.along -= run.length - count;
        allowance.spare -= extra;
        runs.push(run);
      } else runs.push(...this.#runsOf(run.filter((block) => wanted.has(block))));
    }
    return runs;
  }

  /**
   * Blocks of one term in id order, split into runs wherever two are more than rangeGap places apart or under two
   * keys (a Query reads one partition key).
   */
  #runsOf(blocks: readonly Block[]): Block[][] {
    const runs: Block[][] = [];
    for (const block of blocks) {
      const run = runs.at(-1);
      const last = run?.at(-1);
      if (run && last && block.index - last.index <= this.#rangeGap && block.pk === last.pk) run.push(block);
      else runs.push([block]);
    }
    return runs;
  }

  #termOf(block: Block): string {
    return this.#lists[block.term]?.term ?? '';
  }

  /** `block` as its term's directory lists it. */
  #listed(block: Block): ListedBlock {
    const max = this.#lists[block.term]?.entries[block.index]?.[1] ?? Number.NaN;
    return { term: this.#termOf(block), sk: block.sk, after: block.after, to: block.to, max };
  }

  /** Whether the container kept `block`: its postings are then set from what it kept. */
  #fromCache(block: Block): boolean {
    const columns = this.#cache?.get(this.#listed(block));
    if (columns) block.postings = this.#atLengths(columns, this.#termOf(block));
    return columns !== undefined;
  }

  /** Sets `block`'s postings from the record read (none: the block went since the directory), and keeps them. */
  #found(block: Block, row: Record<string, unknown> | undefined, readAt: number) {
    if (!row) {
      block.postings = EMPTY;
      return;
    }
    const columns = decodeColumns(row.p);
    this.#cache?.keep(this.#listed(block), columns, readAt);
    block.postings = this.#atLengths(columns, this.#termOf(block));
  }

  async #readByKey(single: Block[], readAt: number): Promise<void> {
    const keys = single.map(({ pk, sk }) => ({ pk, sk }));
    const rows = await batchGet(this.#client, this.#tableName, keys, { concurrency: 4 });
    const byKey = new Map(rows.map((row) => [`${row.pk}\u0000${row.sk}`, row]));
    for (const block of single) this.#found(block, byKey.get(`${block.pk}\u0000${block.sk}`), readAt);
  }

  async #readRange(run: Block[], readAt: number): Promise<void> {
    const list = this.#lists[run[0]?.term ?? 0] as TermList;
    const first = run[0] as Block;
    const last = run.at(-1) as Block;
    const rows = await queryAll(this.#client, {
      TableName: this.#tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': first.pk, ':from': first.sk, ':to': last.sk },
    });
    const bySk = new Map(rows.map((row) => [row.sk, row]));
    // Every block of the range was read: the ones between are kept too, for later pieces.
    for (const block of list.blocks.slice(first.index, last.index + 1))
      if (!block.postings) this.#found(block, bySk.get(block.sk), readAt);
  }
}
