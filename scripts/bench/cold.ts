// `npm run bench:cold`: a fresh Node process imports a deployed bundle and serves one request against DynamoDB
// Local; the floor is a 10-line handler built with the same options that only sends the raw GetCommand. The
// handlers run in rotating order within each round (get-item right next to the floor), so drift on this shared
// machine hits them alike; the budget is judged on both the ratio of medians and the median of the per-round ratios
// (get-item over the floor of its round).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bootstrap,
  buildBundle,
  envNumber,
  median,
  ms,
  quantile,
  raisePriority,
  verdictOf,
  writeResult,
} from './common.ts';
import {
  apiEvent,
  deployedBundle,
  getItemEvent,
  packageFunctions,
  postEvent,
  SAMPLE_ITEM,
  withLocalService,
} from './service.ts';

const ROUNDS = envNumber('BENCH_COLD_ROUNDS', 101);
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

await withLocalService(async (service) => {
  writeFileSync(join(dir, 'driver.mjs'), DRIVER);
  const deployed = packageFunctions(join(dir, 'deployed'));
  const deployedCase = (name: string, event: unknown) => {
    const { bundlePath, bundleBytes } = deployedBundle(deployed, name);
    return { name, bundle: bundlePath, bytes: bundleBytes, event };
  };
  const built = async (name: string, entry: string, event: unknown) => {
    const { entryPath, entryBytes } = await buildBundle(`scripts/bench/floor/${entry}.ts`, join(dir, entry));
    return { name, bundle: entryPath, bytes: entryBytes, event };
  };
  const getEvent = getItemEvent(service.itemId);
  const floorName = 'floor (raw GetCommand)';
  const cases = [
    await built(floorName, 'get-item', getEvent),
    await built(
      'floor + the libraries (Powertools logger and metrics, JWT verifier, valibot, middy)',
      'get-item-with-libraries',
      getEvent,
    ),
    deployedCase('getItem', getEvent),
    deployedCase('listItems', apiEvent('GET /items', '/items', {})),
    deployedCase('createItem', postEvent('POST /items', service.token('editor'), SAMPLE_ITEM)),
    deployedCase(
      'retrieve',
      postEvent('POST /retrieve', service.token('reader'), { query: 'waterproof boot', topK: 3 }),
    ),
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
  const of = (name: string | undefined) => samples.get(name ?? '') ?? [];
  const floorSamples = of(floorName);
  const [librariesSamples, getSamples] = [of(librariesCase?.name), of('getItem')];
  const floorTotal = median(floorSamples.map((s) => s.totalMs));
  const floorImport = median(floorSamples.map((s) => s.importMs));
  // Per round: a handler over the floor of the same round (wall time), and its CPU time minus the floor's.
  const paired = (list: Sample[]) => list.map((s, i) => s.totalMs / (floorSamples[i]?.totalMs ?? Number.NaN));
  const cpuOver = (list: Sample[]) =>
    median(list.map((s, i) => s.cpuMs - (floorSamples[i]?.cpuMs ?? Number.NaN)));
  const pairedRatios = paired(getSamples);
  const rows = cases.map((c) => {
    const list = of(c.name);
    const [total, imported] = [median(list.map((s) => s.totalMs)), median(list.map((s) => s.importMs))];
    return `| ${c.name} | ${(c.bytes / 1000).toFixed(1)} | ${ms(total, 1)} | ${ms(imported, 1)} | ${ms(median(list.map((s) => s.invokeMs)), 1)} | ${ms(median(list.map((s) => s.cpuMs)), 1)} | ${(total / floorTotal).toFixed(3)} | ${median(paired(list)).toFixed(3)} | ${(imported / floorImport).toFixed(2)} |`;
  });
  const getTotal = median(getSamples.map((s) => s.totalMs));
  const ratio = getTotal / floorTotal;
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
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
  const interval = (range: number[]) => range.map((x) => x.toFixed(3)).join('–');
  const markdown = `${ROUNDS} rounds, Node ${process.version}, nice ${PRIORITY}; medians.

| handler | bundle KB | spawn → response (ms) | import (ms) | first request (ms) | CPU (ms) | × floor (spawn → response) | × floor, per round | × floor (import) |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

get-item ÷ floor, spawn → response: **${ratio.toFixed(3)}** (ratio of medians; 95 % interval ${interval(ratioInterval)});
median of the per-round ratios **${pairedRatio.toFixed(3)}** (95 % interval ${interval(pairedInterval)}; quartiles of
the rounds ${interval([quantile(pairedRatios, 0.25), quantile(pairedRatios, 0.75)])}). Budget ≤ 1.05: **${verdict}**.
CPU time over the floor's, median per round: get-item ${signed(cpuOver(getSamples))} ms, the libraries alone
${signed(cpuOver(librariesSamples))} ms. The floor and the libraries: ${(librariesTotal / floorTotal).toFixed(3)} × the floor
(${median(paired(librariesSamples)).toFixed(3)} per round); get-item ${(getTotal / librariesTotal).toFixed(3)} × that.`;
  const data = {
    samples: Object.fromEntries(samples),
    ratio,
    pairedRatio,
    ratioInterval,
    pairedInterval,
    verdict,
  };
  writeResult('cold', markdown, data, started);
}).finally(() => rmSync(dir, { recursive: true, force: true }));
