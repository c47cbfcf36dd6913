import { type DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { retryableCancellation } from '../dynamodb/conditions.ts';
import {
  BLOCK_CAPACITY,
  type BlockPosting,
  decodeBlock,
  encodeBlock,
  split,
  withoutPosting,
  withPosting,
} from './blocks.ts';
import { saturation } from './bm25.ts';
import { blockSk, dfKey, impactOf, LAST_BLOCK_SK, postingKey, REFERENCE_LENGTH, termPk } from './keys.ts';

/** One posting: `term` occurs `tf` times in an item of length `dl`; `key` orders it by impact (keys.ts). */
export interface Posting extends BlockPosting {
  term: string;
}

/** Terms per transaction: a term takes up to three actions (a split block and its df), of 100 at most. */
const TERMS_PER_TRANSACTION = 25;
/** Attempts at one posting change that keeps losing a race for its block (each re-reads the block). */
const ATTEMPTS = 30;

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

/** Splits postings into transactions of at most 25 terms, never touching one term twice in a transaction. */
function chunks(postings: Posting[]): Posting[][] {
  const result: Posting[][] = [];
  let current: Posting[] = [];
  let terms = new Set<string>();
  for (const posting of postings) {
    if (current.length === TERMS_PER_TRANSACTION || terms.has(posting.term)) {
      result.push(current);
      current = [];
      terms = new Set();
    }
    current.push(posting);
    terms.add(posting.term);
  }
  if (current.length > 0) result.push(current);
  return result;
}

interface Block {
  sk: string;
  postings: BlockPosting[];
  /** Incremented on every rewrite: each rewrite is a compare-and-swap on it. */
  v: number;
}

/**
 * Adds and removes postings in their blocks. Each change rewrites the block that covers the posting's key
 * (compare-and-swap on the block's version) together with its term's df in one transaction, so df always equals
 * the posting count; a full block splits in the same transaction, an emptied one is deleted. A posting already
 * in (or out of) place is skipped, so every call is idempotent and safe to retry or run concurrently.
 */
export function createPostingWriter({
  client,
  tableName,
  blockCapacity = BLOCK_CAPACITY,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Postings per block at most (tests use tiny blocks to exercise splits); BLOCK_CAPACITY when undefined. */
  blockCapacity?: number | undefined;
}) {
  /** The block covering `key`: the first block ending at or after it (none when the term's last block is gone). */
  async function locate(term: string, key: string): Promise<Block | undefined> {
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :last',
        ExpressionAttributeValues: { ':pk': termPk(term), ':from': blockSk(key), ':last': LAST_BLOCK_SK },
        ExpressionAttributeNames: { '#p': 'p' },
        ProjectionExpression: 'sk, #p, v',
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const [item] = Items;
    if (!item) return undefined;
    const { sk, p, v } = item;
    if (typeof sk !== 'string' || typeof p !== 'string' || typeof v !== 'number')
      throw new Error(`Malformed posting block ${termPk(term)} ${String(sk)}`);
    return { sk, postings: decodeBlock(p), v };
  }

  const put = (term: string, sk: string, postings: BlockPosting[], v: number, was?: number) => ({
    Put: {
      TableName: tableName,
      Item: { pk: termPk(term), sk, p: encodeBlock(postings), v },
      ...(was === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': was } }),
    },
  });
  const dfAdd = (term: string, delta: number) => ({
    Update: {
      TableName: tableName,
      Key: dfKey(term),
      UpdateExpression: 'ADD df :d',
      ExpressionAttributeValues: { ':d': delta },
    },
  });

  /** The writes that add (or remove) `posting` given the block that covers it; none when already in place. */
  function change(posting: Posting, block: Block | undefined, add: boolean): object[] {
    const { term } = posting;
    if (!add) {
      const rest = block && withoutPosting(block.postings, posting.key);
      if (!block || !rest) return [];
      const write =
        rest.length === 0
          ? {
              Delete: {
                TableName: tableName,
                Key: { pk: termPk(term), sk: block.sk },
                ConditionExpression: 'v = :v',
                ExpressionAttributeValues: { ':v': block.v },
              },
            }
          : put(term, block.sk, rest, block.v + 1, block.v);
      return [write, dfAdd(term, -1)];
    }
    const entry = { key: posting.key, tf: posting.tf, dl: posting.dl };
    if (!block) return [put(term, LAST_BLOCK_SK, [entry], 1), dfAdd(term, 1)];
    const postings = withPosting(block.postings, entry);
    if (!postings) return [];
    const halves = split(postings, blockCapacity);
    if (!halves) return [put(term, block.sk, postings, block.v + 1, block.v), dfAdd(term, 1)];
    const [lower, upper] = halves;
    return [
      put(term, blockSk(lower.at(-1)?.key ?? ''), lower, 1),
      put(term, block.sk, upper, block.v + 1, block.v),
      dfAdd(term, 1),
    ];
  }

  /**
   * Applies one transaction's worth of changes; returns how many postings it changed, or undefined when it lost
   * a race (nothing was written then).
   */
  async function attempt(postings: Posting[], add: boolean): Promise<number | undefined> {
    const blocks = await Promise.all(postings.map((p) => locate(p.term, p.key)));
    const changes = postings.map((posting, i) => change(posting, blocks[i], add)).filter((c) => c.length > 0);
    if (changes.length === 0) return 0;
    try {
      await client.send(new TransactWriteCommand({ TransactItems: changes.flat() as never[] }));
      return changes.length;
    } catch (error) {
      if (retryableCancellation(error)) return undefined;
      throw error;
    }
  }

  async function applyOne(posting: Posting, add: boolean): Promise<number> {
    for (let n = 1; n <= ATTEMPTS; n++) {
      if (n > 1)
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 5 * 2 ** n)));
      const changed = await attempt([posting], add);
      if (changed !== undefined) return changed;
    }
    throw new Error(`Posting ${posting.term} ${posting.key} kept losing races for its block`);
  }

  async function apply(postings: Posting[], add: boolean): Promise<number> {
    let changed = 0;
    for (const chunk of chunks(postings)) {
      // A chunk that lost a race (another writer changed one of its blocks) goes on one posting at a time.
      const all = await attempt(chunk, add);
      const each = all === undefined ? await Promise.all(chunk.map((p) => applyOne(p, add))) : [all];
      changed += each.reduce((sum, n) => sum + n, 0);
    }
    return changed;
  }

  return {
    /** Adds postings and 1 to each term's df; postings already there are skipped. Returns how many it added. */
    add: (postings: Posting[]) => apply(postings, true),
    /** Removes postings and takes 1 from each term's df; postings already gone are skipped. Returns how many. */
    remove: (postings: Posting[]) => apply(postings, false),
  };
}
