import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createItemRepository } from '../../lib/items/repository.ts';
import { LENGTH_INDEX, PREFIX_INDEX } from '../../lib/search/format/keys.ts';
import { backfillDictionary } from '../../lib/search/operations/backfill-dictionary.ts';
import { rebuildIndex } from '../../lib/search/operations/rebuild.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import {
  type DynamoDbLocal,
  ensureTable,
  type IndexChanges,
  localClient,
  startDynamoDbLocal,
} from './dynamodb.ts';
import { LOCAL_TABLE, localEnv } from './env.ts';
import type { Issuer } from './issuer.ts';
import { startOffline } from './offline.ts';
import { startStreamConsumer } from './stream-runner.ts';

export { LOCAL_TABLE, localEnv } from './env.ts';

/** Reads the local cursor key from `file`, creating it on first use. */
export function loadOrCreateSecret(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * Told of each step of the start as it begins (`step`, `detail`); the function it returns is called when the step
 * is done, with what it found (`created`, `reused`…), so a caller can show progress with timings.
 */
export type Progress = (step: string, detail: string) => (outcome?: string) => void;

export interface StackOptions {
  issuer: Issuer;
  cursorKey: string;
  port: number;
  lambdaPort: number;
  dynamodbPort: number;
  dataDir?: string;
  log?: boolean;
  progress?: Progress;
  /**
   * A file the stream consumer appends its metrics to, one EMF line a batch, as CloudWatch would get them (the
   * benches read them: where the indexing's time goes); none: metrics off, as the functions run locally.
   */
  consumerMetrics?: string;
}

const quiet: Progress = () => () => {};

/**
 * Starts DynamoDB Local, creates the table, starts the stream consumer and serves the API under
 * serverless-offline. serverless-offline is spawned first, since packaging the functions is the longest step and
 * needs no database; it is asked to answer only once the table exists.
 */
export async function startStack(options: StackOptions) {
  const progress = options.progress ?? quiet;
  const env = localEnv(options.issuer, `http://127.0.0.1:${options.dynamodbPort}`, options.cursorKey);
  const table = Promise.withResolvers<void>();
  const apiDone = progress('API', `serverless-offline on port ${options.port}, packaging the functions`);
  const offlineStarted = startOffline({
    port: options.port,
    lambdaPort: options.lambdaPort,
    env,
    log: options.log ?? false,
    ready: table.promise,
  });
  // Its failure is reported below, once the database's own outcome is known.
  offlineStarted.catch(() => {});
  let dynamodb: DynamoDbLocal | undefined;
  let consumer: Awaited<ReturnType<typeof startStreamConsumer>> | undefined;
  try {
    const dynamodbDone = progress(
      'DynamoDB Local',
      `port ${options.dynamodbPort}, ${options.dataDir ? `data in ${options.dataDir}` : 'in memory'}`,
    );
    dynamodb = await startDynamoDbLocal({
      port: options.dynamodbPort,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    });
    dynamodbDone();
    const tableDone = progress('table', LOCAL_TABLE);
    const client = localClient(dynamodb.endpoint);
    let indexes: IndexChanges | undefined;
    const created = await ensureTable(client, LOCAL_TABLE, {
      onIndexes: (changes) => {
        indexes = changes;
      },
    }).finally(() => client.destroy());
    tableDone(
      created
        ? 'created'
        : indexes
          ? `found; indexes ${[...indexes.created.map((i) => `+${i}`), ...indexes.deleted.map((i) => `-${i}`)].join(' ')}`
          : 'found',
    );
    if (indexes?.created.some((name) => name === PREFIX_INDEX || name === LENGTH_INDEX))
      await reindexForDictionary(dynamodb.endpoint, progress);
    const consumerDone = progress('stream consumer', 'indexes every change for search');
    consumer = startStreamConsumer(env, options.consumerMetrics);
    consumerDone(`started, pid ${consumer.process.pid}`);
    table.resolve();
    const offline = await offlineStarted;
    apiDone(offline.baseUrl);
    const parts = { dynamodb, consumer, offline };
    return {
      baseUrl: offline.baseUrl,
      ...parts,
      env,
      /** Stops the API and the consumer, then DynamoDB Local; each gets SIGKILL if SIGTERM is not enough. */
      stop: () => stopParts(parts),
    };
  } catch (error) {
    table.reject(error);
    const offline = await offlineStarted.catch(() => undefined);
    await stopParts({ dynamodb, consumer, offline });
    throw error;
  }
}

/**
 * A table kept under .local/ has just got an index that infra/table.json added (the dictionary's prefix or length
 * index): the search index is rebuilt as `npm run reindex` rebuilds it, so the new index holds every term.
 */
async function reindexForDictionary(endpoint: string, progress: Progress) {
  const client = DynamoDBDocumentClient.from(localClient(endpoint));
  try {
    const done = progress(
      'index',
      'the table gained a dictionary index: rebuilding the search index (npm run reindex)',
    );
    const items = createItemRepository({ client, tableName: LOCAL_TABLE });
    const indexer = createIndexer({ client, tableName: LOCAL_TABLE, items });
    const rebuild = await rebuildIndex({ client, tableName: LOCAL_TABLE, indexer });
    const { entries } = await backfillDictionary({ client, tableName: LOCAL_TABLE });
    done(`${rebuild.items} items indexed, ${entries} dictionary entries written`);
  } finally {
    client.destroy();
  }
}

/** The API and the consumer first (both use the database), then DynamoDB Local. */
async function stopParts(
  parts: Record<'dynamodb' | 'consumer' | 'offline', { stop(): Promise<void> } | undefined>,
) {
  await Promise.all([parts.offline?.stop(), parts.consumer?.stop()]);
  await parts.dynamodb?.stop();
}
