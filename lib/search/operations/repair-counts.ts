import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../dynamodb/conditions.ts';
import { DOC_PK_PREFIX, idOfDocKey, STATS_KEY } from '../format/keys.ts';
import { scan } from './scan.ts';

/**
 * N and the total length against the committed doc records (version > 0), which only a manual edit of the table can
 * make disagree (a term's df changes in the same write as its postings, and the counts in the same transaction as
 * the doc records). Every commit of the indexer adds 1 to STATS' `commits`, so the counts read with `commits` at c,
 * then a scan of the doc records, then a write conditional on `commits` still being c, sees the doc records exactly
 * as committed: no commit landed in between. 'skipped': a commit landed; run again to check.
 */
export async function repairCounts(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<'ok' | 'repaired' | 'skipped'> {
  const { Item: stats } = await client.send(
    new GetCommand({ TableName: tableName, Key: STATS_KEY, ConsistentRead: true }),
  );
  let docs = 0;
  let len = 0;
  for await (const row of scan(client, tableName, DOC_PK_PREFIX)) {
    // A doc record at version 0 holds no committed item: a new item's write-ahead, or strays handed over.
    if (idOfDocKey(row.pk, row.sk) === undefined || (row.version ?? 0) === 0) continue;
    docs++;
    len += row.dl ?? 0;
  }
  if ((stats?.docs ?? 0) === docs && (stats?.len ?? 0) === len) return 'ok';
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: STATS_KEY,
        UpdateExpression: 'SET docs = :docs, len = :len',
        ConditionExpression:
          typeof stats?.commits === 'number' ? 'commits = :commits' : 'attribute_not_exists(commits)',
        ExpressionAttributeValues: {
          ':docs': docs,
          ':len': len,
          ...(typeof stats?.commits === 'number' ? { ':commits': stats.commits } : {}),
        },
      }),
    );
    return 'repaired';
  } catch (error) {
    if (isConditionFailure(error)) return 'skipped';
    throw error;
  }
}
