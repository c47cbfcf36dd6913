import { type DynamoDBDocumentClient, GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { ItemRepository } from '../items/repository.ts';
import { decodeBlock } from './blocks.ts';
import type { Indexer } from './indexer.ts';
import { BLOCK_PREFIX, idOfKey, STATS_KEY, termPk } from './keys.ts';
import { createPostingWriter, type Posting } from './postings.ts';

export interface RebuildReport {
  items: number;
  removed: number;
  strayPostings: number;
  repairedCounts: number;
}

const Row = v.object({
  pk: v.string(),
  sk: v.string(),
  p: v.optional(v.string()),
  df: v.optional(v.number()),
  dl: v.optional(v.number()),
  version: v.optional(v.number()),
});

async function* scan(client: DynamoDBDocumentClient, tableName: string) {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        ExclusiveStartKey: startKey,
        ProjectionExpression: 'pk, sk, #p, df, dl, version',
        ExpressionAttributeNames: { '#p': 'p' },
      }),
    );
    for (const row of page.Items ?? []) yield v.parse(Row, row);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/**
 * `npm run reindex`: rebuilds the index from the items. Re-derives every item's postings, removes the index
 * records of deleted items, deletes postings no doc record accounts for, and repairs df and corpus counts.
 * Counts are repaired with compare-and-swap, so a write racing the rebuild is never overwritten.
 */
export async function rebuildIndex({
  client,
  tableName,
  items,
  indexer,
  blockCapacity,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  items: ItemRepository;
  indexer: Indexer;
  /** Postings per index block (see blocks.ts), as the indexer writes them. */
  blockCapacity?: number;
}): Promise<RebuildReport> {
  const writer = createPostingWriter({ client, tableName, blockCapacity });
  const report: RebuildReport = { items: 0, removed: 0, strayPostings: 0, repairedCounts: 0 };
  // 1. Every item, then every doc record without an item.
  for (let afterId: number | undefined, more = true; more; ) {
    const page = await items.list({ limit: 100, afterId });
    for (const item of page.items) await indexer.reindexItem(item.id);
    report.items += page.items.length;
    afterId = page.items.at(-1)?.id;
    more = page.hasMore;
  }
  const docs = new Map<number, { dl: number }>();
  const postings: Posting[] = [];
  const dfs = new Map<string, number>();
  for await (const row of scan(client, tableName)) {
    if (row.pk.startsWith('D#')) docs.set(Number(row.pk.slice(2)), { dl: row.dl ?? 0 });
    else if (row.pk.startsWith('T#') && row.sk.startsWith(BLOCK_PREFIX) && row.p !== undefined) {
      const term = row.pk.slice(2);
      for (const posting of decodeBlock(row.p)) postings.push({ term, ...posting });
    } else if (row.pk.startsWith('T#') && row.sk === 'DF') dfs.set(row.pk, row.df ?? 0);
  }
  for (const id of docs.keys()) {
    if ((await indexer.reindexItem(id)) === 'removed') {
      docs.delete(id);
      report.removed++;
    }
  }
  // 2. Postings of items without a doc record cannot come from any rebuild: remove them with their df.
  const counts = new Map<string, number>();
  const stray: Posting[] = [];
  for (const posting of postings) {
    const pk = termPk(posting.term);
    if (docs.has(idOfKey(posting.key))) counts.set(pk, (counts.get(pk) ?? 0) + 1);
    else stray.push(posting);
  }
  // One at a time: a posting a concurrent rebuild removed first is skipped (and not counted) by the writer.
  const strayByTerm = new Map<string, number>();
  for (const posting of stray) {
    const pk = termPk(posting.term);
    const removed = await writer.remove([posting]);
    report.strayPostings += removed;
    strayByTerm.set(pk, (strayByTerm.get(pk) ?? 0) + removed);
  }
  // 3. Counters that drifted (only possible after manual edits): compare-and-swap them back.
  const cas = async (key: Record<string, string>, field: string, seen: number | undefined, value: number) => {
    await client
      .send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: `SET #f = :value`,
          ConditionExpression: seen === undefined ? 'attribute_not_exists(#f)' : '#f = :seen',
          ExpressionAttributeNames: { '#f': field },
          ExpressionAttributeValues: { ':value': value, ...(seen === undefined ? {} : { ':seen': seen }) },
        }),
      )
      .then(() => report.repairedCounts++)
      .catch(() => {});
  };
  for (const [pk, before] of dfs) {
    const df = before - (strayByTerm.get(pk) ?? 0);
    const actual = counts.get(pk) ?? 0;
    if (df !== actual) await cas({ pk, sk: 'DF' }, 'df', df, actual);
  }
  const { Item: stats } = await client.send(
    new GetCommand({ TableName: tableName, Key: STATS_KEY, ConsistentRead: true }),
  );
  const len = [...docs.values()].reduce((sum, doc) => sum + doc.dl, 0);
  if (stats?.docs !== docs.size)
    await cas(STATS_KEY, 'docs', typeof stats?.docs === 'number' ? stats.docs : undefined, docs.size);
  if (stats?.len !== len)
    await cas(STATS_KEY, 'len', typeof stats?.len === 'number' ? stats.len : undefined, len);
  return report;
}
