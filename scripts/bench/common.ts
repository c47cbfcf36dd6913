// Shared parts of `npm run bench`: statistics, the deployed bundles (read from the zips `serverless package`
// writes), esbuild with the options of serverless.yml, DynamoDB Local with the service's table, Lambda events.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { load } from 'js-yaml';
import { ensureTable, localClient, startDynamoDbLocal } from '../local/dynamodb.ts';
import { createIssuer, type Issuer, mintToken } from '../local/issuer.ts';
import { freePort } from '../local/ports.ts';
import { localEnv, startStack } from '../local/stack.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Raw figures stay out of the repository (.local/ is ignored); BENCHMARKS.md and the chart are the output.
export const RESULTS_DIR = join(ROOT, '.local', 'bench', 'results');

/** The value at quantile `q` (0..1) of `values`, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** The 2.5 % and 97.5 % quantiles of `statistic` over resamples of `items` (a seeded PRNG: the same data, the same interval). */
export function bootstrap<T>(
  items: readonly T[],
  statistic: (sample: T[]) => number,
  resamples = 2000,
): [number, number] {
  let seed = 0x9e3779b9;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const values: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const sample = Array.from({ length: items.length }, () => items[Math.floor(random() * items.length)]);
    values.push(statistic(sample.filter((x): x is T => x !== undefined)));
  }
  return [quantile(values, 0.025), quantile(values, 0.975)];
}
/** A budget's verdict from a 95 % interval: met or not met only when the whole interval is on one side of `bound`. */
export const verdictOf = ([low, high]: readonly number[], bound: number): string =>
  (high ?? Number.NaN) <= bound ? 'met' : (low ?? Number.NaN) > bound ? 'not met' : 'not decided by this run';
export const ms = (value: number, digits = 2): string => value.toFixed(digits);
export const kb = (bytes: number): string => (bytes / 1000).toFixed(1);
/** A figure with thousands separators and `digits` decimals; '—' when there is none. */
export const fmt = (value: number | undefined, digits = 1): string =>
  value === undefined || !Number.isFinite(value)
    ? '—'
    : value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
/** A markdown table. */
export const table = (head: readonly string[], rows: readonly (readonly (string | number)[])[]): string =>
  [head, head.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');

/** One part's results: markdown for BENCHMARKS.md and the raw figures. */
export interface PartResult {
  part: string;
  markdown: string;
  data: unknown;
  seconds: number;
}

/** Writes a part's results under .local/bench/results/, where the report picks them up. */
export function writeResult(result: PartResult): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${result.part}.json`), `${JSON.stringify(result, null, 2)}\n`);
  console.log(result.markdown);
}

/** The files of a zip archive (stored or deflated entries, as serverless writes them). */
export function readZip(zip: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(offset + 10);
    const compressed = zip.readUInt32LE(offset + 20);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const local = zip.readUInt32LE(offset + 42);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(dataStart, dataStart + compressed);
    files.set(name, method === 0 ? Buffer.from(raw) : inflateRawSync(raw));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

export interface DeployedFunction {
  name: string;
  handler: string;
  zipBytes: number;
  /** The entry bundle, extracted under `dir`. */
  bundlePath: string;
  bundleBytes: number;
}

/** Runs `serverless package --stage prod` (exactly as deployed) and extracts every function's bundle to `dir`. */
export function packageFunctions(dir: string): DeployedFunction[] {
  const packageDir = join(dir, 'package');
  const run = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/serverless/bin/serverless.js'),
      'package',
      '--stage',
      'prod',
      '--package',
      packageDir,
    ],
    // A work folder of its own: packaging deletes it, and a running serverless-offline serves from `.esbuild`.
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ESBUILD_WORK_FOLDER: '.esbuild-bench' } },
  );
  if (run.status !== 0) throw new Error(`serverless package failed:\n${run.stdout}\n${run.stderr}`);
  const state = JSON.parse(readFileSync(join(packageDir, 'serverless-state.json'), 'utf8'));
  const functions: Record<string, { handler: string }> = state.service.functions;
  return Object.entries(functions).map(([name, { handler }]) => {
    const zip = readFileSync(join(packageDir, `${name}.zip`));
    const entry = `${handler.slice(0, handler.lastIndexOf('.'))}.mjs`;
    let bundlePath = '';
    let bundleBytes = 0;
    for (const [file, data] of readZip(zip)) {
      const target = join(dir, name, file);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, data);
      if (file === entry) {
        bundlePath = target;
        bundleBytes = data.length;
      }
    }
    if (!bundlePath) throw new Error(`${name}.zip has no ${entry}`);
    return { name, handler, zipBytes: zip.length, bundlePath, bundleBytes };
  });
}

/** serverless.yml's `custom.esbuild`, as esbuild options (the plugin's own keys removed). */
export function deployedEsbuildOptions(): esbuild.BuildOptions {
  const yaml = readFileSync(join(ROOT, 'serverless.yml'), 'utf8');
  const block = /\n {2}esbuild:\n((?: {4}.*\n|\s*\n)+)/.exec(yaml)?.[1];
  if (!block) throw new Error('serverless.yml has no custom.esbuild block');
  const {
    exclude: _exclude,
    outputWorkFolder: _outputWorkFolder,
    outputFileExtension,
    ...options
  } = load(block.replace(/^ {4}/gm, '')) as Record<string, unknown>;
  return {
    ...options,
    outExtension: { '.js': String(outputFileExtension ?? '.js') },
  } as esbuild.BuildOptions;
}

/** Builds `entry` with the deployed options (plus `overrides`) into `outdir`; returns the output sizes. */
export async function buildBundle(
  entry: string,
  outdir: string,
  overrides: esbuild.BuildOptions = {},
): Promise<{ entryPath: string; entryBytes: number; staticBytes: number; totalBytes: number }> {
  const result = await esbuild.build({
    ...deployedEsbuildOptions(),
    ...overrides,
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outdir,
    metafile: true,
    logLevel: 'error',
  });
  const outputs = result.metafile.outputs;
  const entryPath = Object.keys(outputs).find((file) => outputs[file]?.entryPoint) ?? '';
  // What a cold start loads: the entry and the chunks it imports statically (dynamic imports stay lazy).
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of outputs[file]?.imports ?? []) {
      if (!imported.external && imported.kind === 'import-statement') visit(imported.path);
    }
  };
  visit(entryPath);
  const bytesOf = (files: Iterable<string>) =>
    [...files].reduce((sum, file) => sum + (outputs[file]?.bytes ?? 0), 0);
  return {
    entryPath: join(ROOT, entryPath),
    entryBytes: outputs[entryPath]?.bytes ?? 0,
    staticBytes: bytesOf(seen),
    totalBytes: bytesOf(Object.keys(outputs)),
  };
}

export interface LocalService {
  endpoint: string;
  tableName: string;
  issuer: Issuer;
  /** The functions' environment, as the `local` stage gives it (scripts/local/stack.ts). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * `npm start`'s stack on free ports (DynamoDB Local in memory, serverless-offline, the stream consumer) with a fresh
 * token issuer, an editor's and a reader's token; `stop` stops it once, and so do SIGINT and SIGTERM.
 */
export async function startBenchStack() {
  const issuer = createIssuer();
  const stack = await startStack({
    issuer,
    cursorKey: 'bench-cursor-key-0123456789abcdef0123456789',
    port: await freePort(),
    lambdaPort: await freePort(),
    dynamodbPort: await freePort(),
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= stack.stop();
    return stopping;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void stop().then(() => process.exit(130)));
  const token = (group: string) => mintToken(issuer, { groups: [group], expiresIn: 7200 });
  return { baseUrl: stack.baseUrl, editor: token('editor'), reader: token('reader'), stop };
}

/** DynamoDB Local on a free port with the service's table, a fresh token issuer and the functions' env. */
export async function startLocalService(tableName = 'items-bench'): Promise<LocalService> {
  const dynamodb = await startDynamoDbLocal({ port: await freePort() });
  const client = localClient(dynamodb.endpoint);
  await ensureTable(client, tableName);
  client.destroy();
  const issuer = createIssuer();
  const env = {
    ...localEnv(issuer, dynamodb.endpoint, 'bench-cursor-key-0123456789abcdef0123456789'),
    TABLE_NAME: tableName,
    POWERTOOLS_SERVICE_NAME: 'items',
    POWERTOOLS_LOG_LEVEL: 'WARN',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  return { endpoint: dynamodb.endpoint, tableName, issuer, env, stop: () => dynamodb.stop() };
}

/** The item cold, warm and ab create and read. */
export const SAMPLE_ITEM = {
  name: 'Trail Boot',
  description: 'Waterproof hiking boot with a grippy sole',
  tags: ['outdoor'],
  attributes: { brand: 'acme' },
};

/** An API Gateway HTTP API (payload 2.0) event. */
export function apiEvent({
  method,
  path,
  routeKey,
  pathParameters,
  headers = {},
  body,
}: {
  method: string;
  path: string;
  routeKey: string;
  pathParameters?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}) {
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

/** `GET /items/{item_id}` as API Gateway sends it. */
export const getItemEvent = (id: number) =>
  apiEvent({
    method: 'GET',
    path: `/items/${id}`,
    routeKey: 'GET /items/{item_id}',
    pathParameters: { item_id: String(id) },
  });

/** `POST /items` with a JSON body and a bearer token, as API Gateway sends it. */
export const createItemEvent = (token: string, fields: unknown) =>
  apiEvent({
    method: 'POST',
    path: '/items',
    routeKey: 'POST /items',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(fields),
  });

/** A Lambda context with the fields the middleware reads. */
export function lambdaContext(functionName: string) {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: 'bench-request',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => 10_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/**
 * Raises this process's scheduling priority where permitted (children, DynamoDB Local and measured processes,
 * inherit it), so other work on this shared machine disturbs timings less; returns the priority measured at.
 */
export function raisePriority(): number {
  try {
    setPriority(-10);
  } catch {
    // Not permitted: measured at normal priority (the report says which).
  }
  return getPriority();
}
