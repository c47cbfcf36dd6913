import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../concurrency.ts';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { isConditionFailure, retryableCancellation } from '../../dynamodb/conditions.ts';
import { retry } from '../../retry.ts';
import {
  BLOCK_CAPACITY,
  type BlockPosting,
  decodeBlock,
  edit,
  encodeBlock,
  splitInto,
} from '../format/blocks.ts';
import { saturation } from '../format/bm25.ts';
import {
  blockSk,
  DF_SK,
  dfKey,
  dictionaryEntry,
  impactOf,
  LAST_BLOCK_SK,
  postingKey,
  REFERENCE_LENGTH,
  termOfPk,
  termPk,
} from '../format/keys.ts';

/** One posting: `term` occurs `tf` times in an item of length `dl`; `key` orders it by impact (keys.ts). */
export interface Posting extends BlockPosting {
  term: string;
}

/** The postings of an indexed state, keyed by term and posting key (deterministic: retries write the same keys). */
export function postingsOf(
  id: number,
  indexed: { dl: number; terms: Record<string, number> },
): Map<string, Posting> {
  const postings = new Map<string, Posting>();
  for (const [term, tf] of Object.entries(indexed.terms)) {
    const key = postingKey(impactOf(saturation({ tf, dl: indexed.dl, avgdl: REFERENCE_LENGTH })), id);
    postings.set(`${term}\u0000${key}`, { term, key, tf, dl: indexed.dl });
  }
  return postings;
}

/** A block as the writer stores it: its sort key, postings and version, and whether it is its term's head record. */
export interface BlockRecord {
  sk: string;
  postings: BlockPosting[];
  v: number;
  /** The term's only block: it holds the df and the dictionary entry (keys.ts). */
  head: boolean;
}

/**
 * The planning step of every block rewrite, pure (the writer turns it into conditional writes, the benchmark's bulk
 * loader applies it in memory): the records `block` (undefined: a new last block) becomes when it holds `postings`.
 * A block over capacity is cut into the fewest blocks that fit, the lower ones new (version 1, ending at their
 * last key), the upper one keeping the block's place at the next version. `alone`: the block is its term's only
 * one, so unless it splits it stays the head. An emptied block goes (`[]`), but for the last block of a split
 * term, which stays empty: it is what tells a writer that the term has split (see `readStates`).
 */
export function planBlock(
  block: Pick<BlockRecord, 'sk' | 'v'> | undefined,
  postings: BlockPosting[],
  { alone, capacity }: { alone: boolean; capacity: number },
): BlockRecord[] {
  if (postings.length === 0 && !(block?.sk === LAST_BLOCK_SK && !alone)) return [];
  const chunks = splitInto(postings, capacity);
  const upper = chunks.pop() ?? [];
  return [
    ...chunks.map((lower) => ({ sk: blockSk(lower.at(-1)?.key ?? ''), postings: lower, v: 1, head: false })),
    {
      sk: block?.sk ?? LAST_BLOCK_SK,
      postings: upper,
      v: (block?.v ?? 0) + 1,
      head: alone && chunks.length === 0,
    },
  ];
}

/** The stored form of a block: a head carries the df and the dictionary entry, a split term's last block `s`. */
export const blockItem = (term: string, { sk, postings, v, head }: BlockRecord) => ({
  pk: termPk(term),
  sk,
  p: encodeBlock(postings),
  v,
  ...(head ? { df: postings.length, ...dictionaryEntry(term) } : {}),
  ...(!head && sk === LAST_BLOCK_SK ? { s: 1 } : {}),
});

/** The stored form of a split term's DF record, which is then its dictionary entry. */
export const dfItem = (term: string, df: number) => ({ ...dfKey(term), df, ...dictionaryEntry(term) });

/** Actions per transaction (DynamoDB allows 100): a block's rewrite with its splits, and the df. */
const ACTIONS_PER_TRANSACTION = 100;

interface Block {
  sk: string;
  postings: BlockPosting[];
  /** Incremented on every rewrite: each rewrite is a compare-and-swap on it. */
  v: number;
  /** Set on the last block (B#~) of a term that has split (and so has a DF record), in the split's own write. */
  split: boolean;
}

/** What the writer reads of a term before changing it. */
interface TermState {
  /** The term's last block (`B#~`), if any. */
  last: Block | undefined;
  /** The term's DF record, which exists once the term has had more than one block; undefined when it has none. */
  df: number | undefined;
}

interface TermChange {
  add: BlockPosting[];
  remove: Set<string>;
}

/** Thrown inside the writer when a compare-and-swap lost to another writer: the term is read again and redone. */
class LostRace extends Error {}

export interface PostingChanges {
  add?: readonly Posting[];
  remove?: readonly Posting[];
}

export interface ApplyOptions {
  /** Called before every write; throws to stop the writer (the indexer's lease on its items is running out). */
  fence?: () => void;
}

/**
 * Applies a batch of posting changes grouped by term: each term is read once and each of its blocks touched by the
 * batch is rewritten once, under a compare-and-swap on the block's version, whatever the number of changes in it.
 *
 * A term's df is kept where it costs least: a term whose postings fit one block (most terms) has no DF record, its
 * df is its last block's posting count, and a change is one conditional write of that block. When a term first
 * needs a second block, its DF record is created in the same transaction as the split, and from then on every
 * change rewrites the touched blocks and adds to the df in one transaction. So df always equals the posting count.
 * The record that holds the df (the only block, or the DF record) is the term's entry in the dictionary (keys.ts).
 *
 * Adding a posting already in place, or removing one already gone, changes nothing, so every call is idempotent and
 * safe to retry or to run concurrently with another: a write that lost a race re-reads its term and is redone.
 */
export function createPostingWriter({
  client,
  tableName,
  blockCapacity = BLOCK_CAPACITY,
  concurrency = 32,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Postings per block at most (tests use tiny blocks to exercise splits); BLOCK_CAPACITY when undefined. */
  blockCapacity?: number | undefined;
  /** Terms written at once. */
  concurrency?: number;
}) {
  const parseBlock = (item: Record<string, unknown>): Block => {
    const { sk, p, v, s } = item;
    if (typeof sk !== 'string' || typeof p !== 'string' || typeof v !== 'number')
      throw new Error(`Malformed posting block ${String(item.pk)} ${String(sk)}`);
    return { sk, postings: decodeBlock(p), v, split: s === 1 };
  };

  /** Each term's last block and DF record, read consistently (two keys a term, 100 keys a call). */
  async function readStates(terms: readonly string[]): Promise<Map<string, TermState>> {
    const rows = await batchGet(
      client,
      tableName,
      terms.flatMap((term) => [{ pk: termPk(term), sk: LAST_BLOCK_SK }, dfKey(term)]),
      { consistent: true, concurrency: 4 },
    );
    const states = new Map(
      terms.map((term): [string, TermState] => [term, { last: undefined, df: undefined }]),
    );
    for (const row of rows) {
      const state = states.get(termOfPk(row.pk) ?? '');
      if (!state) continue;
      if (row.sk === DF_SK) state.df = typeof row.df === 'number' ? row.df : 0;
      else state.last = parseBlock(row);
    }
    // BatchGetItem reads each key on its own: a term can be seen without its DF record and with the last block a
    // concurrent split wrote. The last block says it is split (in the split's own write): such a term is written as
    // a split term, whatever this read saw of its DF record. Its df serves only to choose how its blocks are read
    // (0: from the first key on); the df itself changes by ADD, in the transactions that rewrite the blocks.
    for (const state of states.values()) if (state.last?.split && state.df === undefined) state.df = 0;
    return states;
  }

  /** Blocks of a term with several, from the first one that covers `from` to the last. */
  async function blocksFrom(term: string, from: string, limit?: number): Promise<Block[]> {
    const blocks: Block[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :last',
          ExpressionAttributeValues: { ':pk': termPk(term), ':from': blockSk(from), ':last': LAST_BLOCK_SK },
          ExpressionAttributeNames: { '#p': 'p' },
          ProjectionExpression: 'sk, #p, v',
          ConsistentRead: true,
          ...(limit ? { Limit: limit } : {}),
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      blocks.push(...(page.Items ?? []).map(parseBlock));
      startKey = limit ? undefined : page.LastEvaluatedKey;
    } while (startKey);
    return blocks;
  }

  /**
   * The blocks that cover `keys` (sorted): one range read from the first key when the keys are many for the
   * term's size (a batch touching most blocks), else a one-block read per key (duplicates dropped).
   */
  async function covering(term: string, keys: readonly string[], df: number): Promise<Block[]> {
    const first = keys[0];
    if (first === undefined) return [];
    const blocksAtHalfFill = Math.ceil(df / Math.max(1, blockCapacity / 2));
    if (keys.length * 4 >= blocksAtHalfFill) return blocksFrom(term, first);
    const found = await Promise.all(keys.map((key) => blocksFrom(term, key, 1)));
    // The reads are separate: one that ran before another writer split a block and one that ran after can disagree
    // on which block covers a key. A block seen at two versions shows that, and the term is read again.
    const bySk = new Map<string, Block>();
    for (const block of found.flat()) {
      if ((bySk.get(block.sk)?.v ?? block.v) !== block.v) throw new LostRace();
      bySk.set(block.sk, block);
    }
    return [...bySk.values()].sort((a, b) => (a.sk < b.sk ? -1 : 1));
  }

  /**
   * The conditional writes that turn `block` into `postings` (planBlock): a new block only where none is, a block
   * only at the version read, and a head only while it is still one, so a writer that read it before a concurrent
   * split (or saw the split's last block without its DF record) loses the race.
   */
  function rewrite(
    term: string,
    block: Block | undefined,
    postings: BlockPosting[],
    alone = false,
  ): object[] {
    const headOnly = (condition: string) => (alone ? `${condition} AND attribute_not_exists(s)` : condition);
    const records = planBlock(block, postings, { alone, capacity: blockCapacity });
    if (records.length === 0 && block)
      return [
        {
          Delete: {
            TableName: tableName,
            Key: { pk: termPk(term), sk: block.sk },
            ConditionExpression: headOnly('v = :v'),
            ExpressionAttributeValues: { ':v': block.v },
          },
        },
      ];
    return records.map((record) => ({
      Put: {
        TableName: tableName,
        Item: blockItem(term, record),
        ...(block && record.sk === block.sk
          ? { ConditionExpression: headOnly('v = :v'), ExpressionAttributeValues: { ':v': block.v } }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      },
    }));
  }

  /** Sends one write alone or several in a transaction; a lost compare-and-swap or conflict is a LostRace. */
  async function send(actions: object[], fence: () => void): Promise<void> {
    fence();
    try {
      const [only] = actions;
      if (actions.length === 1 && only && 'Put' in only)
        await client.send(new PutCommand((only as { Put: ConstructorParameters<typeof PutCommand>[0] }).Put));
      else if (actions.length === 1 && only && 'Delete' in only)
        await client.send(
          new DeleteCommand((only as { Delete: ConstructorParameters<typeof DeleteCommand>[0] }).Delete),
        );
      else await client.send(new TransactWriteCommand({ TransactItems: actions as never[] }));
    } catch (error) {
      if (isConditionFailure(error) || retryableCancellation(error)) throw new LostRace();
      throw error;
    }
  }

  const dfAdd = (term: string, delta: number) => ({
    Update: {
      TableName: tableName,
      Key: dfKey(term),
      // The dictionary entry is set again on every change (the same values: no index write for its keys), so a DF
      // record written before the dictionary existed joins it at its term's next change.
      UpdateExpression: 'ADD df :d SET wt = :wt, wp = :wp, wl = :wl',
      ExpressionAttributeValues: {
        ':d': delta,
        ...Object.fromEntries(
          Object.entries(dictionaryEntry(term)).map(([name, value]) => [`:${name}`, value]),
        ),
      },
    },
  });

  /** Applies one term's changes to its current state; returns how many postings were added and removed. */
  async function applyTerm(term: string, change: TermChange, state: TermState, fence: () => void) {
    if (state.df === undefined) {
      // One block at most: df is its posting count, and it needs no DF record until it splits.
      const result = edit(state.last?.postings ?? [], change.add, change.remove);
      if (result.added + result.removed === 0) return result;
      const writes = rewrite(term, state.last, result.postings, true);
      if (writes.length > 1)
        writes.push({
          Put: {
            TableName: tableName,
            Item: dfItem(term, result.postings.length),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        });
      await send(writes, fence);
      return result;
    }
    const keys = [...new Set([...change.add.map((p) => p.key), ...change.remove])].sort();
    const blocks = await covering(term, keys, state.df);
    // Each key goes to the first block ending at or after it; keys past every block to a new last block.
    const groups = new Map<Block | undefined, TermChange>();
    for (const key of keys) {
      const block = blocks.find((b) => b.sk >= blockSk(key));
      const group = groups.get(block) ?? { add: [], remove: new Set<string>() };
      groups.set(block, group);
      if (change.remove.has(key)) group.remove.add(key);
    }
    for (const posting of change.add) {
      const block = blocks.find((b) => b.sk >= blockSk(posting.key));
      groups.get(block)?.add.push(posting);
    }
    let added = 0;
    let removed = 0;
    const batches: { writes: object[]; delta: number }[] = [];
    for (const [block, group] of groups) {
      const result = edit(block?.postings ?? [], group.add, group.remove);
      if (result.added + result.removed === 0) continue;
      added += result.added;
      removed += result.removed;
      const writes = rewrite(term, block, result.postings);
      const delta = result.added - result.removed;
      const open = batches.at(-1);
      // A block's writes stay in one transaction (a split must land whole), with room for the df.
      if (open && open.writes.length + writes.length < ACTIONS_PER_TRANSACTION) {
        open.writes.push(...writes);
        open.delta += delta;
      } else batches.push({ writes, delta });
    }
    // Each transaction carries the df change of its own blocks, so df equals the posting count after each one.
    for (const { writes, delta } of batches)
      await send(delta === 0 ? writes : [...writes, dfAdd(term, delta)], fence);
    return { added, removed };
  }

  async function apply(changes: PostingChanges, { fence = () => {} }: ApplyOptions = {}) {
    const byTerm = new Map<string, TermChange>();
    const changeOf = (term: string) => {
      const change = byTerm.get(term) ?? { add: [], remove: new Set<string>() };
      byTerm.set(term, change);
      return change;
    };
    for (const { term, key, tf, dl } of changes.add ?? []) changeOf(term).add.push({ key, tf, dl });
    for (const { term, key } of changes.remove ?? []) changeOf(term).remove.add(key);
    const terms = [...byTerm.keys()];
    const states = await readStates(terms);
    const results = await mapLimit(terms, concurrency, async (term) => {
      const change = byTerm.get(term) as TermChange;
      let state = states.get(term) as TermState;
      return retry(
        async () => {
          try {
            return await applyTerm(term, change, state, fence);
          } catch (error) {
            if (error instanceof LostRace) state = (await readStates([term])).get(term) as TermState;
            throw error;
          }
        },
        {
          attempts: 30,
          backoff: { baseMs: 10, maxMs: 200 },
          retryable: (error) => error instanceof LostRace,
          exhausted: () => new Error(`postings of ${term}: still losing races after 30 attempts`),
        },
      );
    });
    return {
      added: results.reduce((sum, r) => sum + r.added, 0),
      removed: results.reduce((sum, r) => sum + r.removed, 0),
    };
  }

  return {
    /** Applies additions and removals grouped by term (see above); returns how many were added and removed. */
    apply,
    /** Adds postings (those already there are skipped); returns how many it added. */
    add: async (postings: Posting[], options?: ApplyOptions) =>
      (await apply({ add: postings }, options)).added,
    /** Removes postings (those already gone are skipped); returns how many it removed. */
    remove: async (postings: Posting[], options?: ApplyOptions) =>
      (await apply({ remove: postings }, options)).removed,
  };
}
