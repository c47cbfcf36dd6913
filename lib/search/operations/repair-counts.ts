import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isCancelled, isConditionFailure } from '../../dynamodb/conditions.ts';
import { decodeBlock } from '../format/blocks.ts';
import { BLOCK_PREFIX, DOC_PK_PREFIX, dfKey, LAST_BLOCK_SK, STATS_KEY, termPk } from '../format/keys.ts';
import { type IndexScan, scan } from './scan.ts';

/** Blocks a term may have for its count to be checked in one snapshot (TransactGetItems reads 100 items). */
const SNAPSHOT_BLOCKS = 98;

/**
 * A term's df against its postings, read as one snapshot (TransactGetItems of its DF record and every block), and
 * set to the count under a condition on that snapshot (the df and every block's version), so a writer that changed
 * the term meanwhile makes the repair fail instead of being overwritten. 'skipped': the term changed under every
 * try, or has too many blocks for one snapshot.
 */
async function repairDf(
  client: DynamoDBDocumentClient,
  tableName: string,
  term: string,
): Promise<'ok' | 'repaired' | 'skipped'> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const listed = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :b)',
        ExpressionAttributeValues: { ':pk': termPk(term), ':b': BLOCK_PREFIX },
        ProjectionExpression: 'sk, v',
        ConsistentRead: true,
      }),
    );
    const listedVersions = new Map((listed.Items ?? []).map((row) => [String(row.sk), row.v]));
    const sks = new Set(listedVersions.keys());
    // A split term's last block can be created by a writer at any time: it is read whether listed or not.
    sks.add(LAST_BLOCK_SK);
    if (sks.size > SNAPSHOT_BLOCKS || listed.LastEvaluatedKey) return 'skipped';
    const keys = [dfKey(term), ...[...sks].map((sk) => ({ pk: termPk(term), sk }))];
    const { Responses = [] } = await client.send(
      new TransactGetCommand({ TransactItems: keys.map((Key) => ({ Get: { TableName: tableName, Key } })) }),
    );
    const [dfRecord, ...blocks] = Responses.map((response) => response.Item);
    if (typeof dfRecord?.df !== 'number') return 'ok';
    const present = blocks.flatMap((block) => (block ? [block] : []));
    // A block split off since the listing would be missing from the snapshot; its split rewrote a listed block, so
    // the snapshot is whole only if every listed block is at its listed version.
    if (
      present.some(
        (block) => listedVersions.has(String(block.sk)) && listedVersions.get(String(block.sk)) !== block.v,
      )
    )
      continue;
    if ([...listedVersions.keys()].some((sk) => !present.some((block) => block.sk === sk))) continue;
    const count = present.reduce((sum, block) => sum + decodeBlock(String(block.p)).length, 0);
    if (count === dfRecord.df) return 'ok';
    try {
      await client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName,
                Key: dfKey(term),
                UpdateExpression: 'SET df = :count',
                ConditionExpression: 'df = :seen',
                ExpressionAttributeValues: { ':count': count, ':seen': dfRecord.df },
              },
            },
            // Every block as seen, and no block where none was (a new last block would change the count).
            ...keys.slice(1).map((Key, i) => {
              const block = blocks[i];
              return {
                ConditionCheck: {
                  TableName: tableName,
                  Key,
                  ...(block
                    ? { ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': block.v } }
                    : { ConditionExpression: 'attribute_not_exists(pk)' }),
                },
              };
            }),
          ],
        }),
      );
      return 'repaired';
    } catch (error) {
      if (!isCancelled(error)) throw error;
    }
  }
  return 'skipped';
}

/**
 * N and the total length against the committed doc records (version > 0). Every commit of the indexer adds 1 to STATS'
 * `commits`, so the counts read with `commits` at c, then a scan of the doc records, then a write conditional on
 * `commits` still being c, sees the doc records exactly as committed: no commit landed in between.
 */
async function repairCorpus(client: DynamoDBDocumentClient, tableName: string) {
  const { Item: stats } = await client.send(
    new GetCommand({ TableName: tableName, Key: STATS_KEY, ConsistentRead: true }),
  );
  let docs = 0;
  let len = 0;
  for await (const row of scan(client, tableName, DOC_PK_PREFIX)) {
    // A doc record at version 0 holds no committed item: a new item's write-ahead, or strays handed over.
    if ((row.version ?? 0) === 0) continue;
    docs++;
    len += row.dl ?? 0;
  }
  if (stats?.docs === docs && stats.len === len) return 'ok';
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

/**
 * Repairs the counters that disagree with the index: the df of each term whose DF record the scan saw disagree
 * with its postings (checked again on a snapshot first), then N and the total length. A counter that a writer
 * changed while it was being checked is skipped (and counted), never overwritten.
 */
export async function repairCounts({
  client,
  tableName,
  scanned,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  scanned: IndexScan;
}): Promise<{ repaired: number; skipped: number }> {
  const counts = new Map<string, number>();
  for (const { term } of scanned.postings) counts.set(term, (counts.get(term) ?? 0) + 1);
  const outcomes: string[] = [];
  for (const [term, df] of scanned.dfs)
    if ((counts.get(term) ?? 0) !== df) outcomes.push(await repairDf(client, tableName, term));
  outcomes.push(await repairCorpus(client, tableName));
  return {
    repaired: outcomes.filter((outcome) => outcome === 'repaired').length,
    skipped: outcomes.filter((outcome) => outcome === 'skipped').length,
  };
}
