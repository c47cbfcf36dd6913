import { type DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { onlyConditionFailures } from '../dynamodb/conditions.ts';
import { ItemNotFoundError } from '../items/errors.ts';
import type { ItemRepository } from '../items/repository.ts';
import type { Item } from '../items/schema.ts';
import { reindexEach } from './batch.ts';
import { termFrequencies } from './bm25.ts';
import { docKey, STATS_KEY } from './keys.ts';
import { createPostingWriter, postingsOf } from './postings.ts';
import { TermsText } from './terms.ts';
import { itemText, tokenize } from './tokenizer.ts';

const StoredIndexed = v.object({ version: v.number(), dl: v.number(), terms: TermsText });
const Indexed = v.object({
  version: v.number(),
  dl: v.number(),
  terms: v.custom<Record<string, number>>(() => true),
});
// `pending` lists the targets of rebuilds that started and did not commit: their postings may exist.
const DocSchema = v.object({
  ...StoredIndexed.entries,
  rev: v.number(),
  pending: v.optional(v.array(StoredIndexed)),
});
type Indexed = v.InferOutput<typeof Indexed>;
type Doc = v.InferOutput<typeof DocSchema>;

/** The stored form of an indexed state (the term map as JSON text). */
export const stored = (state: Indexed) => ({
  version: state.version,
  dl: state.dl,
  terms: JSON.stringify(state.terms),
});

const EMPTY: Indexed = { version: 0, dl: 0, terms: {} };

/** What an item contributes to the index: its version, length and term frequencies. */
export function analyze(item: Item): Indexed {
  const tokens = tokenize(itemText(item));
  return { version: item.version, dl: tokens.length, terms: Object.fromEntries(termFrequencies(tokens)) };
}

export interface Indexer {
  /** Makes the index agree with the item's current state (idempotent; safe to retry or run concurrently). */
  reindexItem(id: number): Promise<'unchanged' | 'indexed' | 'removed'>;
  /** Brings the index up to date for these items as one batch; returns each id's outcome. */
  reindexItems(ids: readonly number[]): Promise<Map<number, 'unchanged' | 'indexed' | 'removed'>>;
}

/**
 * Maintains the BM25 index. Invariants: a term's df equals its number of postings (both change in one
 * transaction), and STATS equals the sum over committed doc records (changed with the commit). A rebuild first
 * records its target as `pending` (write-ahead), so a rebuild that crashes half-way is finished or undone by
 * the next one; it commits with a compare-and-swap on the doc record's `rev`.
 */
export function createIndexer({
  client,
  tableName,
  items,
  blockCapacity,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  items: ItemRepository;
  /** Postings per index block (see blocks.ts); tests use tiny blocks. */
  blockCapacity?: number;
}): Indexer {
  const postings = createPostingWriter({ client, tableName, blockCapacity });

  async function readDoc(id: number): Promise<Doc | undefined> {
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: docKey(id), ConsistentRead: true }),
    );
    return Item ? v.parse(DocSchema, Item) : undefined;
  }

  async function readItem(id: number): Promise<Item | undefined> {
    return items.get(id).catch((error) => {
      if (error instanceof ItemNotFoundError) return undefined;
      throw error;
    });
  }

  /** Writes the doc record if its rev is still `rev` (or it is still absent when `rev` is 0). */
  async function transact(actions: object[]): Promise<boolean> {
    try {
      await client.send(new TransactWriteCommand({ TransactItems: actions as never[] }));
      return true;
    } catch (error) {
      if (onlyConditionFailures(error)) return false;
      throw error;
    }
  }
  const revCondition = (rev: number) =>
    rev === 0
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': rev } };

  const single: Pick<Indexer, 'reindexItem'> = {
    async reindexItem(id) {
      for (let attempt = 1; attempt <= 20; attempt++) {
        // Rebuilds of one item that race each other's compare-and-swap back off, so one of them wins.
        if (attempt > 1)
          await new Promise((resolve) =>
            setTimeout(resolve, Math.random() * Math.min(500, 10 * 2 ** attempt)),
          );
        const [item, doc] = await Promise.all([readItem(id), readDoc(id)]);
        if (!item && !doc) return 'unchanged';
        const unfinished = doc?.pending ?? [];
        if (item && doc && unfinished.length === 0 && doc.version === item.version) return 'unchanged';
        const committed: Indexed = doc ?? EMPTY;
        const target: Indexed = item ? analyze(item) : EMPTY;
        const rev = doc?.rev ?? 0;

        // 1. Write-ahead: record the target before touching postings.
        const pendingDoc = {
          ...docKey(id),
          ...stored(committed),
          rev: rev + 1,
          pending: [...unfinished, target].map(stored),
        };
        if (!(await transact([{ Put: { TableName: tableName, Item: pendingDoc, ...revCondition(rev) } }])))
          continue;

        // 2. Postings: add what is wanted, then remove what may exist and is not wanted. In that order a term the
        // item keeps stays findable throughout (a changed length moves its posting to a new impact key); for a
        // moment the item may have both, which a query counts once.
        const wanted = postingsOf(id, target);
        const committedKeys = postingsOf(id, committed);
        const present = new Map([
          ...committedKeys,
          ...unfinished.flatMap((state) => [...postingsOf(id, state)]),
        ]);
        // Without an unfinished earlier rebuild, the committed postings are known to exist.
        const toAdd = [...wanted].filter(([key]) => unfinished.length > 0 || !committedKeys.has(key));
        await postings.add(toAdd.map(([, p]) => p));
        await postings.remove([...present].filter(([key]) => !wanted.has(key)).map(([, p]) => p));

        // 3. Commit the doc record and the corpus statistics together.
        const docs = (item ? 1 : 0) - (committed.version > 0 ? 1 : 0);
        const commitDoc = item
          ? {
              Put: {
                TableName: tableName,
                Item: { ...docKey(id), ...stored(target), rev: rev + 2 },
                ...revCondition(rev + 1),
              },
            }
          : { Delete: { TableName: tableName, Key: docKey(id), ...revCondition(rev + 1) } };
        const stats = {
          Update: {
            TableName: tableName,
            Key: STATS_KEY,
            UpdateExpression: 'ADD docs :docs, len :len',
            ExpressionAttributeValues: { ':docs': docs, ':len': target.dl - committed.dl },
          },
        };
        if (await transact([commitDoc, stats])) return item ? 'indexed' : 'removed';
      }
      throw new Error(`Item ${id} kept changing while it was being indexed`);
    },
  };
  // A shim until the batched write path lands: the batch is its items, rebuilt a few at a time.
  return { ...single, reindexItems: (ids) => reindexEach(single, ids) };
}
