// `npm run bench:cold`: a fresh Node process imports a deployed bundle and serves one request against DynamoDB
// Local; the floor is a 10-line handler built with the same options that only sends the raw GetCommand. The
// handlers run in rotating order within each round (get-item right next to the floor), so drift on this shared
// machine hits them alike; the budget is judged on both the ratio of medians and the median of the per-round ratios
// (get-item over the floor of its round).
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
  bootstrap,
  buildBundle,
  createItemEvent,
  getItemEvent,
  median,
  ms,
  packageFunctions,
  quantile,
  raisePriority,
  SAMPLE_ITEM,
  startLocalService,
  verdictOf,
  writeResult,
} from './common.ts';

const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 101);
const PRIORITY = raisePriority();
const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
const DRIVER = `const start = performance.now();
const { handler } = await import(process.argv[2]);
const imported = performance.now();
const context = { functionName: 'bench', awsRequestId: 'cold', getRemainingTimeInMillis: () => 10000 };
const result = await handler(JSON.parse(process.env.BENCH_EVENT), context);
const done = performance.now();
const cpu = process.cpuUsage();
process.stdout.write(JSON.stringify({ status: result.statusCode, importMs: imported - start, invokeMs: done - imported, processMs: done, cpuMs: (cpu.user + cpu.system) / 1000 }) + '\\n');
process.exit(0);
`;

interface Sample {
  status: number;
  importMs: number;
  invokeMs: number;
  /** CPU time (user + system) of the process up to the response: less disturbed by other work on the machine. */
  cpuMs: number;
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
    return { bundle: fn.bundlePath, bytes: fn.bundleBytes };
  };
  const built = async (entry: string, out: string) => {
    const { entryPath, entryBytes } = await buildBundle(`scripts/bench/floor/${entry}.ts`, join(dir, out));
    return { bundle: entryPath, bytes: entryBytes };
  };
  const raw = localClient(service.endpoint);
  const items = createItemRepository({
    client: DynamoDBDocumentClient.from(raw),
    tableName: service.tableName,
  });
  const item = await items.create(SAMPLE_ITEM);
  raw.destroy();
  const reader = mintToken(service.issuer, { groups: ['reader'], expiresIn: 7200 });
  const editor = mintToken(service.issuer, { groups: ['editor'], expiresIn: 7200 });
  const getEvent = getItemEvent(item.id);
  const cases = [
    { name: 'floor (raw GetCommand)', ...(await built('get-item', 'floor')), event: getEvent },
    {
      name: 'floor + the libraries (Powertools logger and metrics, JWT verifier, valibot, middy)',
      ...(await built('get-item-with-libraries', 'libraries')),
      event: getEvent,
    },
    { name: 'getItem', ...bundleOf('getItem'), event: getEvent },
    {
      name: 'listItems',
      ...bundleOf('listItems'),
      event: apiEvent({ method: 'GET', path: '/items', routeKey: 'GET /items' }),
    },
    {
      name: 'createItem',
      ...bundleOf('createItem'),
      event: createItemEvent(editor, SAMPLE_ITEM),
    },
    {
      name: 'retrieve',
      ...bundleOf('retrieve'),
      event: apiEvent({
        method: 'POST',
        path: '/retrieve',
        routeKey: 'POST /retrieve',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${reader}` },
        body: JSON.stringify({ query: 'waterproof boot', topK: 3 }),
      }),
    },
  ];
  const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
  // One unmeasured round warms the OS file cache.
  for (const c of cases) await coldRun(c.bundle, c.event, service.env);
  // Each round runs the floor and get-item back to back (which goes first alternates), so a round's ratio compares
  // two runs a fraction of a second apart; the other cases go around them in rotating order.
  const [floorCase, librariesCase, getCase, ...rest] = cases;
  const others = [librariesCase, ...rest];
  for (let round = 0; round < ROUNDS; round++) {
    const pair = round % 2 === 0 ? [floorCase, getCase] : [getCase, floorCase];
    const rotated = others.map((_, i) => others[(round + i) % others.length]);
    const at = round % (others.length + 1);
    for (const c of [...rotated.slice(0, at), ...pair, ...rotated.slice(at)]) {
      if (!c) continue;
      const sample = await coldRun(c.bundle, c.event, service.env);
      if (sample.status >= 300) throw new Error(`${c.name} answered ${sample.status}`);
      samples.get(c.name)?.push(sample);
    }
  }
  const floorSamples = samples.get('floor (raw GetCommand)') ?? [];
  const floorTotal = median(floorSamples.map((s) => s.totalMs));
  const floorImport = median(floorSamples.map((s) => s.importMs));
  const librariesSamples = samples.get(cases[1]?.name ?? '') ?? [];
  const getSamples = samples.get('getItem') ?? [];
  // Per round: a handler over the floor of the same round (wall time), and its CPU time minus the floor's.
  const paired = (list: Sample[]) => list.map((s, i) => s.totalMs / (floorSamples[i]?.totalMs ?? Number.NaN));
  const cpuOver = (list: Sample[]) => list.map((s, i) => s.cpuMs - (floorSamples[i]?.cpuMs ?? Number.NaN));
  const pairedRatios = paired(getSamples);
  const rows = cases.map((c) => {
    const list = samples.get(c.name) ?? [];
    const total = median(list.map((s) => s.totalMs));
    const imported = median(list.map((s) => s.importMs));
    return `| ${c.name} | ${(c.bytes / 1000).toFixed(1)} | ${ms(total, 1)} | ${ms(imported, 1)} | ${ms(median(list.map((s) => s.invokeMs)), 1)} | ${ms(median(list.map((s) => s.cpuMs)), 1)} | ${(total / floorTotal).toFixed(3)} | ${median(paired(list)).toFixed(3)} | ${(imported / floorImport).toFixed(2)} |`;
  });
  const ratio = median(getSamples.map((s) => s.totalMs)) / floorTotal;
  const pairedRatio = median(pairedRatios);
  // 95 % bootstrap intervals (rounds resampled, seeded): the verdict is only met or not met when the whole
  // interval of both figures is on one side of 1.05; otherwise this run cannot tell.
  const rounds = getSamples.map((s, i) => ({
    get: s.totalMs,
    floor: floorSamples[i]?.totalMs ?? Number.NaN,
  }));
  const ratioInterval = bootstrap(rounds, (r) => median(r.map((x) => x.get)) / median(r.map((x) => x.floor)));
  const pairedInterval = bootstrap(rounds, (r) => median(r.map((x) => x.get / x.floor)));
  const verdict = verdictOf(
    [Math.max(ratioInterval[0], pairedInterval[0]), Math.max(ratioInterval[1], pairedInterval[1])],
    1.05,
  );
  const librariesTotal = median(librariesSamples.map((s) => s.totalMs));
  const librariesRatio = librariesTotal / floorTotal;
  const librariesPaired = median(paired(librariesSamples));
  const overLibraries = median(getSamples.map((s) => s.totalMs)) / librariesTotal;
  const getCpuOver = median(cpuOver(getSamples));
  const librariesCpuOver = median(cpuOver(librariesSamples));
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
  const interval = (range: number[]) => range.map((x) => x.toFixed(3)).join('–');
  const markdown = `${ROUNDS} rounds, Node ${process.version}, nice ${PRIORITY}; medians.

| handler | bundle KB | spawn → response (ms) | import (ms) | first request (ms) | CPU (ms) | × floor (spawn → response) | × floor, per round | × floor (import) |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

get-item ÷ floor, spawn → response: **${ratio.toFixed(3)}** (ratio of medians; 95 % interval ${interval(ratioInterval)});
median of the per-round ratios **${pairedRatio.toFixed(3)}** (95 % interval ${interval(pairedInterval)}; quartiles of
the rounds ${interval([quantile(pairedRatios, 0.25), quantile(pairedRatios, 0.75)])}). Budget ≤ 1.05: **${verdict}**.
CPU time over the floor's, median per round: get-item ${signed(getCpuOver)} ms, the libraries alone
${signed(librariesCpuOver)} ms. The floor and the libraries: ${librariesRatio.toFixed(3)} × the floor
(${librariesPaired.toFixed(3)} per round); get-item ${overLibraries.toFixed(3)} × that.`;
  writeResult({
    part: 'cold',
    markdown,
    data: {
      samples: Object.fromEntries(samples),
      ratio,
      pairedRatio,
      ratioInterval,
      pairedInterval,
      verdict,
    },
    seconds: (Date.now() - started) / 1000,
  });
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
