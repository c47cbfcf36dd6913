import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryAll, queryEach } from '../../dynamodb/query-all.ts';
import { updateIfUnchanged } from '../../dynamodb/transactions.ts';
import {
  countsQuery,
  DOC_PK_PREFIX,
  idOfDocKey,
  SHRUNK_ENTRIES,
  STATS_SHARDS,
  shrunkOf,
  shrunkQueries,
  statsKey,
  sumCounts,
} from '../format/keys.ts';
import { scan } from './scan.ts';

/** What the counts should say: the committed doc records' number and lengths, and the shrunk set's entries. */
async function committedTotals(client: DynamoDBDocumentClient, tableName: string) {
  const totals = { docs: 0, len: 0, [SHRUNK_ENTRIES]: 0 };
  for await (const row of scan(client, tableName, DOC_PK_PREFIX)) {
    // A doc record at version 0 holds no committed item: a new item's write-ahead, or strays handed over.
    if (idOfDocKey(row.pk, row.sk) === undefined || (row.version ?? 0) === 0) continue;
    totals.docs++;
    totals.len += row.dl ?? 0;
  }
  totals[SHRUNK_ENTRIES] = shrunkOf(await queryEach(client, shrunkQueries(tableName, true))).length;
  return totals;
}

/**
 * N, the total length and the shrunk set's entries against the committed doc records (version > 0) and the set, which
 * only a manual edit of the table can make disagree (a term's df changes in the same write as its postings, and the
 * counts in the same transaction as the doc records and the set's entries). Every commit of the indexer adds 1 to
 * `commits` in the part of the counts it writes, so the parts read with their `commits`, then a scan of the doc
 * records and a read of the set, then a write conditional on every part's `commits` being unchanged, sees them exactly
 * as committed: no commit landed in between. The difference goes to part 0. 'skipped': a commit landed; run again
 * to check.
 */
export async function repairCounts(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<'ok' | 'repaired' | 'skipped'> {
  const parts = await queryAll(client, countsQuery(tableName, true));
  const counts = sumCounts(parts);
  const totals = await committedTotals(client, tableName);
  const recorded = { docs: counts.docs, len: counts.len, [SHRUNK_ENTRIES]: counts.shrunkEntries };
  const names = Object.keys(totals) as (keyof typeof totals)[];
  if (names.every((name) => totals[name] === recorded[name])) return 'ok';
  /** Every part as read: its `commits` unchanged, or still absent. */
  const unchanged = (part: number) => {
    const key = statsKey(part);
    const read = parts.find((row) => row.sk === key.sk);
    return typeof read?.commits === 'number'
      ? { ConditionExpression: 'commits = :c', ExpressionAttributeValues: { ':c': read.commits } }
      : { ConditionExpression: 'attribute_not_exists(commits)' };
  };
  const first = parts.find((row) => row.sk === statsKey(0).sk);
  const own = (name: string) => (typeof first?.[name] === 'number' ? (first[name] as number) : 0);
  // Only a commit that landed meanwhile (a changed part, or one being written) is passed over.
  const written = await updateIfUnchanged(
    client,
    {
      TableName: tableName,
      Key: statsKey(0),
      UpdateExpression: `SET ${names.map((name) => `${name} = :${name}`).join(', ')}`,
      ...unchanged(0),
      ExpressionAttributeValues: {
        ...unchanged(0).ExpressionAttributeValues,
        ...Object.fromEntries(names.map((name) => [`:${name}`, own(name) + totals[name] - recorded[name]])),
      },
    },
    Array.from({ length: STATS_SHARDS - 1 }, (_, i) => ({
      TableName: tableName,
      Key: statsKey(i + 1),
      ...unchanged(i + 1),
    })),
  );
  return written ? 'repaired' : 'skipped';
}
