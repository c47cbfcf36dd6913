// `npm run bench:cold`: a fresh Node process imports a deployed bundle and serves one request against DynamoDB
// Local, every handler once a round, get-item next to the floor (floor/get-item.ts: only the raw GetCommand).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  bootstrap,
  buildBundle,
  envNumber,
  median,
  medianRatioInterval,
  ms,
  quantile,
  raisePriority,
  verdictOf,
  writeResult,
} from './common.ts';
import { apiEvent, getItemEvent, postEvent, SAMPLE_ITEM, withDeployedService } from './service.ts';

const ROUNDS = envNumber('BENCH_COLD_ROUNDS', 101);
const PRIORITY = raisePriority();
const RETRIEVE = { query: 'waterproof boot', topK: 3 };
const DRIVER = `const start = performance.now();
const { handler } = await import(process.argv[2]);
const imported = performance.now();
const context = { functionName: 'bench', awsRequestId: 'cold', getRemainingTimeInMillis: () => 10000 };
const result = await handler(JSON.parse(process.env.BENCH_EVENT), context);
const done = performance.now();
const cpu = process.cpuUsage();
process.stdout.write(JSON.stringify({ status: result.statusCode, importMs: imported - start, invokeMs: done - imported, cpuMs: (cpu.user + cpu.system) / 1000 }) + '\\n');
process.exit(0);
`;

/** The driver's figures (CPU: user + system up to the response) and spawn → response, measured here. */
type Sample = { status: number; importMs: number; invokeMs: number; cpuMs: number; totalMs: number };

function coldRun(dir: string, bundle: string, event: unknown, env: Record<string, string>): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const begin = performance.now();
    const child = spawn(process.execPath, [join(dir, 'driver.mjs'), bundle], {
      env: { ...env, PATH: process.env.PATH ?? '', BENCH_EVENT: JSON.stringify(event) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let [out, err, totalMs] = ['', '', 0];
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) totalMs ||= performance.now() - begin;
    });
    child.once('exit', (code) => {
      if (totalMs) resolve({ ...JSON.parse(out), totalMs });
      else reject(new Error(`driver exited ${code}:\n${err}`));
    });
  });
}

await withDeployedService(async (service, deployed, dir) => {
  writeFileSync(join(dir, 'driver.mjs'), DRIVER);
  const run = (c: { bundlePath: string; event: unknown }) => coldRun(dir, c.bundlePath, c.event, service.env);
  const handler = (name: string, event: unknown) => ({ ...deployed(name), event });
  const floorBundle = await buildBundle('scripts/bench/floor/get-item.ts', join(dir, 'floor'));
  const floor = { name: 'floor (raw GetCommand)', event: getItemEvent(service.itemId), ...floorBundle };
  const get = handler('getItem', getItemEvent(service.itemId));
  const others = [
    handler('listItems', apiEvent('GET /items', '/items')),
    handler('createItem', postEvent('POST /items', service.token('editor'), SAMPLE_ITEM)),
    handler('retrieve', postEvent('POST /retrieve', service.token('reader'), RETRIEVE)),
  ];
  const cases = [floor, get, ...others];
  const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
  // One unmeasured round warms the OS file cache.
  for (const c of cases) await run(c);
  // The floor and get-item back to back (which goes first alternates); the others around them in rotating order.
  for (let round = 0; round < ROUNDS; round++) {
    const pair = round % 2 === 0 ? [floor, get] : [get, floor];
    const shift = round % others.length;
    const rotated = [...others.slice(shift), ...others.slice(0, shift)];
    const at = round % (others.length + 1);
    for (const c of [...rotated.slice(0, at), ...pair, ...rotated.slice(at)]) {
      const sample = await run(c);
      if (sample.status >= 300) throw new Error(`${c.name} answered ${sample.status}`);
      samples.get(c.name)?.push(sample);
    }
  }
  const of = (name: string) => samples.get(name) ?? [];
  const medianOf = (list: Sample[], key: keyof Sample) => median(list.map((s) => s[key]));
  const floorSamples = of(floor.name);
  const [floorTotal, floorImport] = [medianOf(floorSamples, 'totalMs'), medianOf(floorSamples, 'importMs')];
  // Per round: a handler over the floor of the same round (wall time), and its CPU time minus the floor's.
  const paired = (list: Sample[]) => list.map((s, i) => s.totalMs / (floorSamples[i]?.totalMs ?? Number.NaN));
  const rows = cases.map((c) => {
    const list = of(c.name);
    const [total, imported] = [medianOf(list, 'totalMs'), medianOf(list, 'importMs')];
    return `| ${c.name} | ${(c.bundleBytes / 1000).toFixed(1)} | ${ms(total, 1)} | ${ms(imported, 1)} | ${ms(medianOf(list, 'invokeMs'), 1)} | ${ms(medianOf(list, 'cpuMs'), 1)} | ${(total / floorTotal).toFixed(3)} | ${median(paired(list)).toFixed(3)} | ${(imported / floorImport).toFixed(2)} |`;
  });
  const getSamples = of('getItem');
  const cpuOver = median(getSamples.map((s, i) => s.cpuMs - (floorSamples[i]?.cpuMs ?? Number.NaN)));
  const pairedRatios = paired(getSamples);
  const [ratio, pairedRatio] = [medianOf(getSamples, 'totalMs') / floorTotal, median(pairedRatios)];
  // 95 % bootstrap intervals over the rounds: a verdict only when both figures' intervals are on one side of 1.05.
  const totals = (list: Sample[]) => list.map((s) => s.totalMs);
  const ratioInterval = medianRatioInterval(totals(getSamples), totals(floorSamples));
  const pairedInterval = bootstrap(pairedRatios, median);
  const bounds = [0, 1].map((i) => Math.max(ratioInterval[i] ?? 0, pairedInterval[i] ?? 0));
  const verdict = verdictOf(bounds, 1.05);
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
  const interval = (range: number[]) => range.map((x) => x.toFixed(3)).join('–');
  const markdown = `${ROUNDS} rounds, Node ${process.version}, nice ${PRIORITY}; medians.

| handler | bundle KB | spawn → response (ms) | import (ms) | first request (ms) | CPU (ms) | × floor (spawn → response) | × floor, per round | × floor (import) |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

get-item ÷ floor, spawn → response: **${ratio.toFixed(3)}** (ratio of medians; 95 % interval ${interval(ratioInterval)});
median of the per-round ratios **${pairedRatio.toFixed(3)}** (95 % interval ${interval(pairedInterval)}; quartiles of
the rounds ${interval([quantile(pairedRatios, 0.25), quantile(pairedRatios, 0.75)])}). Budget ≤ 1.05: **${verdict}**.
CPU time over the floor's, median per round: get-item ${signed(cpuOver)} ms.`;
  const figures = { ratio, pairedRatio, ratioInterval, pairedInterval, verdict };
  writeResult('cold', markdown, { samples: Object.fromEntries(samples), ...figures });
});
