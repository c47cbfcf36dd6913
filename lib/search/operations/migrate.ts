import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { scanPages } from '../../dynamodb/pages.ts';
import { retry } from '../../retry.ts';
import { DOC_PK_PREFIX, LEGACY, TERM_PK_PREFIX } from '../format/keys.ts';
import type { Indexer } from '../write/indexer.ts';
import type { Progress } from './progress.ts';
import { type RebuildReport, rebuildIndex } from './rebuild.ts';

export interface MigrationReport {
  rebuild: RebuildReport;
  /** Layout 1's records removed (keys.ts LEGACY). */
  swept: number;
}

/**
 * `npm run reindex -- --migrate`: moves an index of layout 1 (impact-ordered blocks, before issue #19) to layout 2
 * (keys.ts). The two layouts share no sort key, so the new code never reads the old records and the migration runs
 * while the API and the stream consumer serve: (1) the full reindex (rebuild.ts) indexes every item into layout 2,
 * resumable by its checkpoint, with its progress line (until it ends, a query finds the items indexed so far);
 * (2) a scan deletes every record of layout 1 (idempotent: a run that stops is resumed by running it again), and
 * reports its progress per page. Both steps can run again at any time: they find nothing left to do.
 */
export async function migrateIndex({
  client,
  tableName,
  indexer,
  onProgress,
  onSwept,
  scanLimit,
  ...options
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  indexer: Indexer;
  onProgress?: (progress: Progress) => void;
  /** Called after each page of the sweep with the records removed so far and the records scanned so far. */
  onSwept?: (swept: number, scanned: number) => void;
  /** Records the sweep scans a page (DynamoDB's 1 MB page when undefined). */
  scanLimit?: number;
  concurrency?: number;
  pageSize?: number;
  restart?: boolean;
}): Promise<MigrationReport> {
  const rebuild = await rebuildIndex({
    client,
    tableName,
    indexer,
    ...options,
    ...(onProgress ? { onProgress } : {}),
  });
  const swept = await sweepLegacy(client, tableName, { onSwept, scanLimit });
  return { rebuild, swept };
}

/** Deletes every record of layout 1, a scan page at a time; returns how many. */
export async function sweepLegacy(
  client: DynamoDBDocumentClient,
  tableName: string,
  {
    onSwept,
    scanLimit,
  }: {
    onSwept?: ((swept: number, scanned: number) => void) | undefined;
    scanLimit?: number | undefined;
  } = {},
): Promise<number> {
  let swept = 0;
  let scanned = 0;
  const pages = scanPages(client, {
    TableName: tableName,
    ProjectionExpression: 'pk, sk',
    FilterExpression:
      '(begins_with(pk, :t) AND (begins_with(sk, :b) OR sk = :df)) OR (begins_with(pk, :d) AND sk = :doc) OR (pk = :stats AND sk = :corpus)',
    ExpressionAttributeValues: {
      ':t': TERM_PK_PREFIX,
      ':b': LEGACY.blockPrefix,
      ':df': LEGACY.dfSk,
      ':d': DOC_PK_PREFIX,
      ':doc': LEGACY.docSk,
      ':stats': LEGACY.statsKey.pk,
      ':corpus': LEGACY.statsKey.sk,
    },
    ...(scanLimit ? { Limit: scanLimit } : {}),
  });
  for await (const page of pages) {
    scanned += page.ScannedCount ?? 0;
    const keys = (page.Items ?? []).map(({ pk, sk }) => ({ pk, sk }));
    for (let i = 0; i < keys.length; i += 25) {
      let pending = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
      await retry(
        async () => {
          const reply = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
          pending = (reply.UnprocessedItems?.[tableName] ?? []) as typeof pending;
          return pending;
        },
        {
          attempts: 9,
          backoff: { baseMs: 20, maxMs: 500 },
          until: (left) => left.length === 0,
          exhausted: () => new Error('BatchWriteItem kept leaving deletions unprocessed'),
        },
      );
    }
    swept += keys.length;
    onSwept?.(swept, scanned);
  }
  return swept;
}
