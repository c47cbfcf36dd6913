// The service as the parts stand it up: DynamoDB Local, `npm start`'s stack, the deployed bundles, Lambda's events
// and context. What is started here runs under the reaper (scripts/local/children.ts).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../lib/concurrency.ts';
import { createDocumentClient } from '../../lib/dynamodb/client.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { ensureTable, localClient, startDynamoDbLocal } from '../local/dynamodb.ts';
import { LOCAL_TABLE, localEnv } from '../local/env.ts';
import { createIssuer, type Issuer, mintToken } from '../local/issuer.ts';
import { freePort } from '../local/ports.ts';
import { ROOT } from './common.ts';

const CURSOR_KEY = 'bench-cursor-key-0123456789abcdef0123456789';
const tokenOf = (issuer: Issuer) => (group: string) =>
  mintToken(issuer, { groups: [group], expiresIn: 7200 });

/** The `i`th put of a pace run `run`: its record, keys included (a new key each, so each put is a conditional create). */
type PaceRecord = (run: string, i: number) => Record<string, unknown>;
/** The pace's small put, under a `PACE#` key no part of the service reads. */
const smallPut: PaceRecord = (run, i) => ({
  pk: `PACE#${run}#${i}`,
  sk: 'B#~',
  p: '000123#0000000000000001:1:40',
  v: 1,
});
/** How a pace run writes: records a transaction (1: a PutItem each), requests in flight, the record put. */
export type PutShape = { perTransaction?: number; inFlight?: number; record?: PaceRecord };

/**
 * DynamoDB Local's own pace: small conditional PutItems (or `record`'s) a second, 32 in flight (or `perTransaction` a
 * TransactWriteItems, `inFlight` of them at once: the local stream consumer's shape), on `tableName` (the table being
 * measured, or one with no stream), under a `PACE#` key no part of the service reads. Not on a scratch table with a
 * stream made mid-run: DynamoDB Local finds a table's stream shard by scanning every stream record kept before the
 * shard's first (its `MIN(SequenceNumber) … WHERE ShardID = ?` has no index), so a table whose stream starts later
 * writes slower as records pile up before it (`.local` measurements: 1,379 puts/s on the first table, 207 on one
 * started after 12,000 records). Such a scratch table measured that, not the pace the service's table gets.
 */
export async function localPutRate(
  endpoint: string,
  tableName: string,
  { perTransaction = 1, inFlight = 32, record = smallPut }: PutShape = {},
): Promise<number> {
  const raw = localClient(endpoint);
  const client = DynamoDBDocumentClient.from(raw);
  const run = randomUUID();
  const put = (i: number) => ({
    TableName: tableName,
    Item: record(run, i),
    ConditionExpression: 'attribute_not_exists(pk)',
  });
  const groups = Array.from({ length: Math.ceil(2_000 / perTransaction) }, (_, g) =>
    Array.from({ length: perTransaction }, (_, k) => g * perTransaction + k),
  );
  const begin = performance.now();
  await mapLimit(groups, inFlight, async (ids) => {
    if (ids.length === 1) await client.send(new PutCommand(put(ids[0] ?? 0)));
    else await client.send(new TransactWriteCommand({ TransactItems: ids.map((i) => ({ Put: put(i) })) }));
  });
  const seconds = (performance.now() - begin) / 1000;
  raw.destroy();
  return (groups.length * perTransaction) / seconds;
}

/**
 * Runs `work` against DynamoDB Local on a free port, with `tables` made as deployed: in memory, or `fileBacked` as
 * `npm start` runs it (in a scratch folder, removed after).
 */
export async function withDynamoDb<T>(
  tables: readonly string[],
  work: (db: { endpoint: string; raw: DynamoDBClient }) => Promise<T>,
  { fileBacked = false }: { fileBacked?: boolean } = {},
): Promise<T> {
  const dataDir = fileBacked ? mkdtempSync(join(tmpdir(), 'bench-dynamodb-')) : undefined;
  const dynamodb = await startDynamoDbLocal({ port: await freePort(), ...(dataDir ? { dataDir } : {}) });
  const raw = localClient(dynamodb.endpoint);
  try {
    for (const table of tables) await ensureTable(raw, table);
    return await work({ endpoint: dynamodb.endpoint, raw });
  } finally {
    raw.destroy();
    await dynamodb.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * One stream batch as the consumer's metrics tell it (lib/search/write/stream.ts): when it began and ended (epoch ms)
 * and its figures by metric name (`indexedItems`, `passes`, `planMs`, `dynamodbRequests`…).
 */
export interface ConsumerBatch {
  begin: number;
  end: number;
  figures: Record<string, number>;
}

/** The batches in the EMF lines of `text` (other lines skipped). */
function batchesOf(text: string): ConsumerBatch[] {
  return text.split('\n').flatMap((line) => {
    if (!line.includes('"_aws"')) return [];
    const { _aws, ...fields } = JSON.parse(line) as { _aws: { Timestamp: number } } & Record<string, unknown>;
    const figures = Object.fromEntries(
      Object.entries(fields).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
    );
    return [{ begin: _aws.Timestamp - (figures.batchLatency ?? 0), end: _aws.Timestamp, figures }];
  });
}

/** The item cold and warm create and read. */
export const SAMPLE_ITEM = {
  name: 'Trail Boot',
  description: 'Waterproof hiking boot with a grippy sole',
  tags: ['outdoor'],
  attributes: { brand: 'acme' },
};

/** The service's table on DynamoDB Local holding SAMPLE_ITEM, a token issuer and the functions' environment. */
async function localService(endpoint: string) {
  const issuer = createIssuer();
  const local = localEnv(issuer, endpoint, CURSOR_KEY);
  const env = { ...local, POWERTOOLS_SERVICE_NAME: 'items', POWERTOOLS_LOG_LEVEL: 'WARN' };
  const client = createDocumentClient({ region: 'us-east-1', endpoint });
  const item = await createItemRepository({ client, tableName: LOCAL_TABLE }).create(SAMPLE_ITEM);
  return { tableName: LOCAL_TABLE, env, token: tokenOf(issuer), client, itemId: item.id };
}

/** Runs `work` on `localService` with every function packaged as deployed (`withDeployed`), each found by its name. */
export function withDeployedService<T>(
  work: (service: LocalService, deployed: (name: string) => Deployed[number], dir: string) => Promise<T>,
) {
  return withDynamoDb([LOCAL_TABLE], async ({ endpoint }) => {
    const service = await localService(endpoint);
    const run = withDeployed((deployed, dir) => work(service, byName(deployed), dir));
    return run.finally(() => service.client.destroy());
  });
}
type LocalService = Awaited<ReturnType<typeof localService>>;

/**
 * `npm start`'s stack on free ports: DynamoDB Local file-backed as `npm start` runs it (in a scratch folder, removed
 * at stop), serverless-offline, the stream consumer.
 */
export async function startBenchStack() {
  // Loaded when used: it loads the service's logger and metrics, which read the environment once.
  const { startStack } = await import('../local/stack.ts');
  const issuer = createIssuer();
  const ports = { port: await freePort(), lambdaPort: await freePort(), dynamodbPort: await freePort() };
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-stack-'));
  const consumerMetrics = join(dataDir, 'consumer-metrics.jsonl');
  const stack = await startStack({
    issuer,
    cursorKey: CURSOR_KEY,
    ...ports,
    dataDir,
    consumerMetrics,
    // serverless-offline's own output on stderr, as `npm start` shows it (README).
    log: process.env.LOG_OFFLINE === '1',
  });
  const token = tokenOf(issuer);
  const post = (path: string, bearer: string, body: unknown) =>
    fetch(`${stack.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
  return {
    editor: token('editor'),
    reader: token('reader'),
    post,
    /** DynamoDB Local's own pace now (`localPutRate`), one put a request or in the stream consumer's transactions. */
    localPutRate: (shape?: PutShape) =>
      localPutRate(`http://127.0.0.1:${ports.dynamodbPort}`, LOCAL_TABLE, shape),
    /** Each part's process (the leader of its process group), for the CPU it takes (`cpu.ts`). */
    pids: {
      dynamodb: stack.dynamodb.process.pid,
      offline: stack.offline.process.pid,
      consumer: stack.consumer.process.pid,
    },
    /** The stream batches the consumer has indexed so far, from its metrics. */
    consumerBatches: () => batchesOf(readFileSync(consumerMetrics, 'utf8')),
    stop: async () => {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The files of a zip archive (stored or deflated entries, as serverless writes them). */
function readZip(zip: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  let offset = zip.readUInt32LE(end + 16);
  for (let i = zip.readUInt16LE(end + 10); i > 0; i--) {
    const nameLength = zip.readUInt16LE(offset + 28);
    const local = zip.readUInt32LE(offset + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + zip.readUInt32LE(offset + 20));
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    files.set(name, zip.readUInt16LE(offset + 10) === 0 ? Buffer.from(data) : inflateRawSync(data));
    offset += 46 + nameLength + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
  }
  return files;
}

/** Runs `serverless package --stage prod` (exactly as deployed) and extracts every function to `dir`. */
function packageFunctions(dir: string) {
  const packageDir = join(dir, 'package');
  const cli = join(ROOT, 'node_modules/serverless/bin/serverless.js');
  const run = spawnSync(process.execPath, [cli, 'package', '--stage', 'prod', '--package', packageDir], {
    cwd: ROOT,
    encoding: 'utf8',
    // A work folder of its own: packaging deletes it, and a running serverless-offline serves from `.esbuild`.
    env: { ...process.env, ESBUILD_WORK_FOLDER: '.esbuild-bench' },
  });
  if (run.status !== 0) throw new Error(`serverless package failed:\n${run.stdout}\n${run.stderr}`);
  const state = JSON.parse(readFileSync(join(packageDir, 'serverless-state.json'), 'utf8'));
  const functions: Record<string, { handler: string }> = state.service.functions;
  return Object.entries(functions).map(([name, { handler }]) => {
    const zip = readFileSync(join(packageDir, `${name}.zip`));
    const entry = `${handler.slice(0, handler.lastIndexOf('.'))}.mjs`;
    const files = readZip(zip);
    for (const [file, data] of files) {
      mkdirSync(dirname(join(dir, name, file)), { recursive: true });
      writeFileSync(join(dir, name, file), data);
    }
    const bundleBytes = files.get(entry)?.length;
    if (bundleBytes === undefined) throw new Error(`${name}.zip has no ${entry}`);
    return { name, handler, zipBytes: zip.length, bundlePath: join(dir, name, entry), bundleBytes };
  });
}

type Deployed = ReturnType<typeof packageFunctions>;

/** Runs `work` on every function packaged as deployed, in a scratch directory (`dir`) removed after. */
export async function withDeployed<T>(work: (deployed: Deployed, dir: string) => Promise<T> | T): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-deployed-'));
  try {
    return await work(packageFunctions(join(dir, 'deployed')), dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const byName = (deployed: Deployed) => (name: string) => {
  const fn = deployed.find((f) => f.name === name);
  if (!fn) throw new Error(`no function ${name}`);
  return fn;
};

type EventParts = { pathParameters?: object; headers?: object; body?: string };
/** An API Gateway HTTP API (payload 2.0) event. */
export function apiEvent(routeKey: string, path: string, parts: EventParts = {}) {
  const { pathParameters, headers = {}, body } = parts;
  const method = routeKey.split(' ')[0] ?? '';
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'localhost', 'user-agent': 'bench', ...headers },
    ...(pathParameters ? { pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: 'bench',
      routeKey,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(body === undefined ? {} : { body, isBase64Encoded: false }),
  };
}

export const getItemEvent = (id: number) =>
  apiEvent('GET /items/{item_id}', `/items/${id}`, { pathParameters: { item_id: String(id) } });

export const postEvent = (routeKey: string, token: string, fields: unknown) =>
  apiEvent(routeKey, routeKey.split(' ')[1] ?? '', {
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(fields),
  });

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number }>;

/** A Lambda context with the fields middy, Powertools and the service read. */
const CONTEXT = {
  functionName: 'items-bench',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:items-bench',
  memoryLimitInMB: '1024',
  awsRequestId: 'bench-request',
  getRemainingTimeInMillis: () => 10_000,
};

/** Calls `handler` as Lambda would; throws unless it answers `status`. */
export async function invoke(handler: Handler, event: unknown, status: number): Promise<void> {
  const { statusCode } = await handler(event, CONTEXT);
  if (statusCode !== status) throw new Error(`the handler answered ${statusCode}`);
}
