import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryEach } from '../../dynamodb/query-all.ts';
import { updateIfUnchanged } from '../../dynamodb/transactions.ts';
import {
  countsQueries,
  DOC_PK_PREFIX,
  idOfDocKey,
  STATS_SHARDS,
  statsKey,
  sumCounts,
} from '../format/keys.ts';
import { scan } from './scan.ts';

/**
 * N and the total length against the committed doc records (version > 0), which only a manual edit of the table can
 * make disagree (a term's df changes in the same write as its postings, and the counts in the same transaction as
 * the doc records). Every commit of the indexer adds 1 to `commits` in the part of the counts it writes, so the
 * parts read with their `commits`, then a scan of the doc records, then a write conditional on every part's `commits`
 * being unchanged, sees the doc records exactly as committed: no commit landed in between. The difference goes to
 * part 0. 'skipped': a commit landed; run again to check.
 */
export async function repairCounts(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<'ok' | 'repaired' | 'skipped'> {
  const parts = await queryEach(client, countsQueries(tableName, true));
  const counts = sumCounts(parts);
  let docs = 0;
  let len = 0;
  for await (const row of scan(client, tableName, DOC_PK_PREFIX)) {
    // A doc record at version 0 holds no committed item: a new item's write-ahead, or strays handed over.
    if (idOfDocKey(row.pk, row.sk) === undefined || (row.version ?? 0) === 0) continue;
    docs++;
    len += row.dl ?? 0;
  }
  if (counts.docs === docs && counts.len === len) return 'ok';
  /** Every part as read: its `commits` unchanged, or still absent. */
  const unchanged = (part: number) => {
    const key = statsKey(part);
    const read = parts.find((row) => row.pk === key.pk && row.sk === key.sk);
    return typeof read?.commits === 'number'
      ? { ConditionExpression: 'commits = :c', ExpressionAttributeValues: { ':c': read.commits } }
      : { ConditionExpression: 'attribute_not_exists(commits)' };
  };
  const first = parts.find((row) => row.pk === statsKey(0).pk && row.sk === statsKey(0).sk);
  const own = (name: 'docs' | 'len') => (typeof first?.[name] === 'number' ? (first[name] as number) : 0);
  // Only a commit that landed meanwhile (a changed part, or one being written) is passed over.
  const written = await updateIfUnchanged(
    client,
    {
      TableName: tableName,
      Key: statsKey(0),
      UpdateExpression: 'SET docs = :docs, len = :len',
      ...unchanged(0),
      ExpressionAttributeValues: {
        ...unchanged(0).ExpressionAttributeValues,
        ':docs': own('docs') + docs - counts.docs,
        ':len': own('len') + len - counts.len,
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
