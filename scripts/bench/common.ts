// What every part of the benchmark kit shares: its options, statistics, markdown, the results files, the order in
// which variants measured side by side take turns, and esbuild with a tree's serverless.yml options.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { load } from 'js-yaml';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Raw figures stay out of the repository (.local/ is ignored); BENCHMARKS.md and the chart are the output.
export const RESULTS_DIR = join(ROOT, '.local', 'bench', 'results');

/** A number from the environment variable `name`, else `fallback`. */
export const envNumber = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
/** A comma-separated list from the environment variable `name`, else `fallback`. */
export const envList = (name: string, fallback: string): string[] =>
  (process.env[name] ?? fallback).split(',');
/** Collection sizes from the environment variable `name` (comma-separated), smallest first. */
export const envSizes = (name: string, fallback: string): number[] =>
  envList(name, fallback)
    .map(Number)
    .sort((a, b) => a - b);

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The value at quantile `q` (0..1) of `values`, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
export const median = (values: readonly number[]): number => quantile(values, 0.5);
export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
/** The mean (0 for no values). */
export const mean = (values: readonly number[]): number => sum(values) / Math.max(1, values.length);

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

/** Prints a part's markdown and writes its results under .local/bench/results/, where the report picks them up. */
export function writeResult(part: string, markdown: string, data: unknown, started: number): void {
  const result: PartResult = { part, markdown, data, seconds: (Date.now() - started) / 1000 };
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${part}.json`), `${JSON.stringify(result, null, 2)}\n`);
  console.log(markdown);
}

/** How long `call` took, in milliseconds. */
export async function timed(call: () => Promise<unknown>): Promise<number> {
  const begin = performance.now();
  await call();
  return performance.now() - begin;
}

/**
 * `rounds` rounds in which every variant takes its turn, in reverse order every other round, so that drift on this
 * shared machine hits them alike.
 */
export async function alternating<V>(
  rounds: number,
  variants: readonly V[],
  turn: (variant: V, round: number) => Promise<void>,
): Promise<void> {
  for (let round = 0; round < rounds; round++)
    for (const variant of round % 2 ? [...variants].reverse() : variants) await turn(variant, round);
}

// Every part builds bundles with this, and other trees' `bench:ab` import it from this file.
/** serverless.yml's `custom.esbuild` (of the tree at `root`), as esbuild options (the plugin's own keys removed). */
export function deployedEsbuildOptions(root = ROOT): esbuild.BuildOptions {
  const yaml = readFileSync(join(root, 'serverless.yml'), 'utf8');
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

/** Builds `entry` of the tree at `root` with its deployed options (plus `overrides`) into `outdir`. */
export async function buildBundle(
  entry: string,
  outdir: string,
  overrides: esbuild.BuildOptions = {},
  root = ROOT,
): Promise<{ entryPath: string; entryBytes: number }> {
  const result = await esbuild.build({
    ...deployedEsbuildOptions(root),
    ...overrides,
    absWorkingDir: root,
    entryPoints: [entry],
    outdir,
    metafile: true,
    logLevel: 'error',
  });
  const [entryPath, output] =
    Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint) ?? [];
  return { entryPath: join(root, entryPath ?? ''), entryBytes: output?.bytes ?? 0 };
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
