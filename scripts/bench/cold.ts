// `npm run bench:cold`: a fresh Node process imports a deployed bundle and serves one request against DynamoDB
// Local; the floor is a 10-line handler built with the same options that only sends the raw GetCommand. The
// handlers run in rotating order within each round, so drift on this shared machine hits them alike.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createItemRepository } from '../../lib/items/repository.ts';
import { localClient } from '../local/dynamodb.ts';
import { mintToken } from '../local/issuer.ts';
import {
  apiEvent,
  buildBundle,
  median,
  ms,
  packageFunctions,
  startLocalService,
  writeResult,
} from './common.ts';

const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 31);
const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
const DRIVER = `const start = performance.now();
const { handler } = await import(process.argv[2]);
const imported = performance.now();
const context = { functionName: 'bench', awsRequestId: 'cold', getRemainingTimeInMillis: () => 10000 };
const result = await handler(JSON.parse(process.env.BENCH_EVENT), context);
const done = performance.now();
process.stdout.write(JSON.stringify({ status: result.statusCode, importMs: imported - start, invokeMs: done - imported, processMs: done }) + '\\n');
process.exit(0);
`;

interface Sample {
  status: number;
  importMs: number;
  invokeMs: number;
  /** From spawn to the response, measured by the parent. */
  totalMs: number;
}

function coldRun(bundle: string, event: unknown, env: Record<string, string>): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const begin = performance.now();
    const child = spawn(process.execPath, [join(dir, 'driver.mjs'), bundle], {
      env: { ...env, PATH: process.env.PATH ?? '', BENCH_EVENT: JSON.stringify(event) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) {
        const totalMs = performance.now() - begin;
        const parsed = JSON.parse(out);
        child.once('exit', () => resolve({ ...parsed, totalMs }));
      }
    });
    child.once('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`driver exited ${code}:\n${err}`));
    });
  });
}

const service = await startLocalService();
try {
  writeFileSync(join(dir, 'driver.mjs'), DRIVER);
  const deployed = packageFunctions(join(dir, 'deployed'));
  const bundleOf = (name: string) => {
    const fn = deployed.find((f) => f.name === name);
    if (!fn) throw new Error(`no function ${name}`);
    return fn.bundlePath;
  };
  const floor = await buildBundle('scripts/bench/floor/get-item.ts', join(dir, 'floor'));
  const withLibraries = await buildBundle(
    'scripts/bench/floor/get-item-with-libraries.ts',
    join(dir, 'libraries'),
  );
  const raw = localClient(service.endpoint);
  const items = createItemRepository({
    client: DynamoDBDocumentClient.from(raw),
    tableName: service.tableName,
  });
  const item = await items.create({
    name: 'Trail Boot',
    description: 'Waterproof hiking boot with a grippy sole',
    tags: ['outdoor'],
    attributes: { brand: 'acme' },
  });
  raw.destroy();
  const reader = mintToken(service.issuer, { groups: ['reader'], expiresIn: 7200 });
  const editor = mintToken(service.issuer, { groups: ['editor'], expiresIn: 7200 });
  const json = { 'content-type': 'application/json' };
  const getEvent = apiEvent({
    method: 'GET',
    path: `/items/${item.id}`,
    routeKey: 'GET /items/{item_id}',
    pathParameters: { item_id: String(item.id) },
  });
  const cases = [
    { name: 'floor (raw GetCommand)', bundle: floor.entryPath, event: getEvent },
    {
      name: 'floor + the libraries (logger, metrics, JWT verifier, valibot, middy)',
      bundle: withLibraries.entryPath,
      event: getEvent,
    },
    { name: 'getItem', bundle: bundleOf('getItem'), event: getEvent },
    {
      name: 'listItems',
      bundle: bundleOf('listItems'),
      event: apiEvent({ method: 'GET', path: '/items', routeKey: 'GET /items' }),
    },
    {
      name: 'createItem',
      bundle: bundleOf('createItem'),
      event: apiEvent({
        method: 'POST',
        path: '/items',
        routeKey: 'POST /items',
        headers: { ...json, authorization: `Bearer ${editor}` },
        body: JSON.stringify({
          name: 'Rain Jacket',
          description: 'Light shell',
          tags: ['outdoor'],
          attributes: {},
        }),
      }),
    },
    {
      name: 'retrieve',
      bundle: bundleOf('retrieve'),
      event: apiEvent({
        method: 'POST',
        path: '/retrieve',
        routeKey: 'POST /retrieve',
        headers: { ...json, authorization: `Bearer ${reader}` },
        body: JSON.stringify({ query: 'waterproof boot', topK: 3 }),
      }),
    },
  ];
  const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
  // One unmeasured round warms the OS file cache.
  for (const c of cases) await coldRun(c.bundle, c.event, service.env);
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < cases.length; i++) {
      const c = cases[(round + i) % cases.length];
      if (!c) continue;
      const sample = await coldRun(c.bundle, c.event, service.env);
      if (sample.status >= 300) throw new Error(`${c.name} answered ${sample.status}`);
      samples.get(c.name)?.push(sample);
    }
  }
  const floorSamples = samples.get('floor (raw GetCommand)') ?? [];
  const floorTotal = median(floorSamples.map((s) => s.totalMs));
  const floorImport = median(floorSamples.map((s) => s.importMs));
  const getSamples = samples.get('getItem') ?? [];
  // Per round: get-item over the floor in the same round.
  const pairedRatios = getSamples.map((s, i) => s.totalMs / (floorSamples[i]?.totalMs ?? Number.NaN));
  const bytesOf = (bundle: string) =>
    bundle === floor.entryPath
      ? floor.entryBytes
      : bundle === withLibraries.entryPath
        ? withLibraries.entryBytes
        : (deployed.find((f) => f.bundlePath === bundle)?.bundleBytes ?? 0);
  const rows = cases.map((c) => {
    const list = samples.get(c.name) ?? [];
    const total = median(list.map((s) => s.totalMs));
    const imported = median(list.map((s) => s.importMs));
    return `| ${c.name} | ${(bytesOf(c.bundle) / 1000).toFixed(1)} | ${ms(total, 1)} | ${ms(imported, 1)} | ${ms(median(list.map((s) => s.invokeMs)), 1)} | ${(total / floorTotal).toFixed(3)} | ${(imported / floorImport).toFixed(2)} |`;
  });
  const ratio = median(getSamples.map((s) => s.totalMs)) / floorTotal;
  const librariesName = cases[1]?.name ?? '';
  const librariesTotal = median((samples.get(librariesName) ?? []).map((s) => s.totalMs));
  const librariesRatio = librariesTotal / floorTotal;
  const overLibraries = median(getSamples.map((s) => s.totalMs)) / librariesTotal;
  const markdown = `## Cold start

A fresh \`node\` process (${process.version}) imports the deployed bundle and serves one request against DynamoDB
Local; the parent measures from \`spawn\` to the response line. *import* and *first request* are measured inside
the process. ${ROUNDS} rounds; in each round every handler runs once, in rotating order; medians. The floor is
\`scripts/bench/floor/get-item.ts\`, built with the same esbuild options, which only sends the raw \`GetCommand\`.

| handler | bundle KB | spawn → response (ms) | import (ms) | first request (ms) | × floor (spawn → response) | × floor (import) |
|---|---|---|---|---|---|---|
${rows.join('\n')}

get-item ÷ floor, spawn → response: **${ratio.toFixed(3)}** (ratio of medians); median of the per-round ratios
${median(pairedRatios).toFixed(3)}. Budget ≤ 1.05: **${ratio <= 1.05 ? 'met' : 'not met'}**.
${
  ratio <= 1.05
    ? ''
    : `
Where the time goes: the raw call plus only the libraries every handler needs — Powertools logger and metrics,
the Cognito JWT verifier, valibot and middy, constructed as the service constructs them
(\`scripts/bench/floor/get-item-with-libraries.ts\`) — is **${librariesRatio.toFixed(3)} × the floor**; get-item is
${overLibraries.toFixed(3)} × that, the service's own start-up (configuration parsing, schemas, runtime wiring, the
middleware chain and its first request). The budget leaves ${(0.05 * floorTotal).toFixed(1)} ms over a
${ms(floorTotal, 1)} ms floor; spawn-to-response medians of the same bundle vary by more than that between runs here
(the per-round ratio is the steadier figure).
`
}`;
  writeResult({
    part: 'cold',
    markdown,
    data: {
      rounds: ROUNDS,
      samples: Object.fromEntries(samples),
      ratio,
      pairedRatio: median(pairedRatios),
      librariesRatio,
      overLibraries,
    },
    seconds: (Date.now() - started) / 1000,
  });
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
