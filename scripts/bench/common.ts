// What the kit's parts share: options, statistics, markdown, the results files, bundles. It loads
// nothing from lib/, so a part can set the environment before the service's modules first read it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { load } from 'js-yaml';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RESULTS_DIR = join(ROOT, '.local', 'bench', 'results');

export const envNumber = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
/** Collection sizes, smallest first. */
export const envSizes = (name: string, fallback: string): number[] =>
  (process.env[name] ?? fallback)
    .split(',')
    .map(Number)
    .sort((a, b) => a - b);

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** mulberry32: a small seeded PRNG (the same seed, the same sequence). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The value at quantile `q` (0..1), nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
export const median = (values: readonly number[]): number => quantile(values, 0.5);
/** The median and the 99th percentile. */
export const percentiles = (times: readonly number[]) => ({ p50: median(times), p99: quantile(times, 0.99) });
export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
/**
 * Latencies of `variant` against `baseline` query by query: the geometric mean over the queries of each one's median
 * ratio. Both hold `queries` latencies a pass, in the same order (`interleave`). A p50 over queries of very different
 * cost sits between two of them, so a ratio of two p50s moves by a query; this one does not.
 */
export function pairedRatio(variant: readonly number[], baseline: readonly number[], queries: number) {
  const perQuery = (values: readonly number[], q: number) =>
    median(values.filter((_, i) => i % queries === q));
  let logs = 0;
  for (let q = 0; q < queries; q++) logs += Math.log(perQuery(variant, q) / perQuery(baseline, q));
  return Math.exp(logs / queries);
}
export const mean = (values: readonly number[]): number => sum(values) / Math.max(1, values.length);
/** Two scores equal up to floating-point rounding (what an exhaustive BM25 and the index's sum differ by). */
export const close = (a: number, b: number) =>
  Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
export const max = (values: readonly number[]): number => Math.max(...values);
export const min = (values: readonly number[]): number => Math.min(...values);
/** Empty series of figures, one per name. */
export const series = <K extends string>(...names: K[]) =>
  Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;

/** The 95 % interval of `statistic` over seeded resamples of `items`. */
export function bootstrap<T>(items: readonly T[], statistic: (sample: T[]) => number): [number, number] {
  const random = prng(0x9e3779b9);
  const values = Array.from({ length: 2000 }, () =>
    statistic(Array.from({ length: items.length }, () => items[Math.floor(random() * items.length)] as T)),
  );
  return [quantile(values, 0.025), quantile(values, 0.975)];
}
/** The 95 % interval of median(a) ÷ median(b) over seeded resamples of the pairs (a[i], b[i]). */
export function medianRatioInterval(a: readonly number[], b: readonly number[]): [number, number] {
  const pairs = a.map((x, i) => [x, b[i] ?? Number.NaN] as const);
  return bootstrap(pairs, (sample) => median(sample.map(([x]) => x)) / median(sample.map(([, y]) => y)));
}
/** A budget's verdict: met or not met only when the whole interval is on one side of `bound`. */
export const verdictOf = ([low, high]: readonly number[], bound: number): string =>
  (high ?? Number.NaN) <= bound ? 'met' : (low ?? Number.NaN) > bound ? 'not met' : 'not decided by this run';

export const ms = (value: number, digits = 2): string => value.toFixed(digits);
/** A figure with thousands separators and `digits` decimals; '—' when there is none. */
export const fmt = (value: number | undefined, digits = 1): string =>
  value === undefined || !Number.isFinite(value)
    ? '—'
    : value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const table = (head: readonly string[], rows: readonly (readonly (string | number)[])[]): string =>
  [head, head.map(() => '---'), ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
/** A table of `rows` from its columns, each a heading and how a row's cell reads. */
export const tableOf = <T>(columns: readonly (readonly [string, (row: T) => string])[], rows: readonly T[]) =>
  table(
    columns.map(([head]) => head),
    rows.map((row) => columns.map(([, cell]) => cell(row))),
  );

/** Prints a part's markdown and writes it with its raw figures and the run's seconds for `bench:report`. */
export function writeResult(part: string, markdown: string, data: unknown): void {
  const result = { part, markdown, data, seconds: process.uptime() };
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${part}.json`), `${JSON.stringify(result, null, 2)}\n`);
  console.log(markdown);
}

/** Builds `entry` with serverless.yml's `custom.esbuild` options, as the functions are built. */
export async function buildBundle(entry: string, outdir: string) {
  const yaml = readFileSync(join(ROOT, 'serverless.yml'), 'utf8');
  const block = /\n {2}esbuild:\n((?: {4}.*\n|\s*\n)+)/.exec(yaml)?.[1];
  if (!block) throw new Error('serverless.yml has no custom.esbuild block');
  const config = load(block.replace(/^ {4}/gm, '')) as Record<string, unknown>;
  const { exclude: _exclude, outputWorkFolder: _work, outputFileExtension, ...options } = config;
  const result = await esbuild.build({
    ...(options as esbuild.BuildOptions),
    outExtension: { '.js': String(outputFileExtension ?? '.js') },
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outdir,
    metafile: true,
    logLevel: 'error',
  });
  const [path, output] = Object.entries(result.metafile.outputs).find(([, out]) => out.entryPoint) ?? [];
  return { bundlePath: join(ROOT, path ?? ''), bundleBytes: output?.bytes ?? 0 };
}

/** Raises this process's priority where permitted (children inherit it); the priority measured at. */
export function raisePriority(): number {
  try {
    setPriority(-10);
  } catch {
    // Not permitted: measured at normal priority (the report says which).
  }
  return getPriority();
}
