// Issue #14 (one HTTP edge): bundle sizes, cold start and warm overheads before and after, for BENCHMARKS.md.
// "Before" is a run of the code before the change (benchmarks/edge-before.json); "after" is this report's run.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './common.ts';

export const EDGE_TITLE = 'Before and after: one HTTP edge (issue #14)';

interface Overhead {
  overheadPercent: number;
  overheadInterval?: [number, number];
}
interface ColdFigures {
  rounds?: number;
  ratio: number;
  ratioInterval?: [number, number];
  pairedRatio?: number;
  pairedInterval?: [number, number];
  librariesRatio?: number;
}
export interface EdgeBefore {
  commit: string;
  measured: string;
  command: string;
  bundle: Record<string, number>;
  floorBytes: number;
  cold: ColdFigures;
  warm: Record<string, Overhead>;
  /** A second run of `bench:warm` on the code before, for its run-to-run spread. */
  warmAgain?: Record<string, Overhead>;
}
/** The latest run's figures, as the parts write them. */
export interface EdgeAfter {
  bundle?: {
    deployed: { name: string; bundleBytes: number }[];
    floor: { deployedOptions: { entryBytes: number } };
  };
  cold?: ColdFigures;
  warm?: Record<string, Overhead>;
}

export function loadEdgeBefore(): EdgeBefore | undefined {
  const file = join(ROOT, 'benchmarks', 'edge-before.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as EdgeBefore) : undefined;
}

const ITEM_HANDLERS = ['listItems', 'getItem', 'createItem', 'replaceItem', 'patchItem', 'deleteItem'];
const KB = (bytes: number | undefined) => (bytes === undefined ? 'not measured' : (bytes / 1000).toFixed(1));
const range = (r?: [number, number], digits = 3) =>
  r ? ` (${r.map((x) => x.toFixed(digits)).join('–')})` : '';
const ratio = (value: number | undefined, r?: [number, number]) =>
  value === undefined ? 'not measured' : `${value.toFixed(3)}${range(r)}`;
const percent = (o: Overhead | undefined) =>
  o ? `${o.overheadPercent.toFixed(1)} %${range(o.overheadInterval, 1)}` : 'not measured';

/** The section: one row per figure, before (the commit named) and after (this run), same commands. */
export function edgeMarkdown(before: EdgeBefore, after: EdgeAfter): string {
  const sizes = new Map(after.bundle?.deployed.map((f) => [f.name, f.bundleBytes]) ?? []);
  const largest = Math.max(...ITEM_HANDLERS.map((name) => sizes.get(name) ?? 0));
  const bundleRows = Object.keys(before.bundle).map(
    (name) =>
      `| \`${name}\` bundle (KB)${ITEM_HANDLERS.includes(name) ? ', budget ≤ 300' : ''} | ${KB(before.bundle[name])} | ${KB(sizes.get(name))} |`,
  );
  const warmRows = [
    ['get-item', 'warm p50 overhead of get-item over its raw call'],
    ['create-item', 'warm p50 overhead of create-item, the same token every request'],
    ['create-item fresh token', 'warm p50 overhead of create-item, a new token every request'],
  ].map(
    ([key = '', label]) =>
      `| ${label} | ${percent(before.warm[key])}${before.warmAgain ? `; ${percent(before.warmAgain[key])}` : ''} | ${percent(after.warm?.[key])} |`,
  );
  return `## ${EDGE_TITLE}

The same three parts run on the code before the change (${before.commit}, measured ${before.measured}:
\`${before.command}\`) and on this report's code (\`npm run bench:bundle\`, \`bench:cold\`,
\`bench:warm\`, then \`npm run bench:report\`). Each column is its own run on this shared machine: compare the
ratios and overheads (each measured against its own floor, interleaved in the same run), not absolute times.
Intervals are 95 %.

| figure | before | after |
|---|---|---|
${bundleRows.join('\n')}
| floor bundle (KB) | ${KB(before.floorBytes)} | ${KB(after.bundle?.floor.deployedOptions.entryBytes)} |
| cold start get-item ÷ floor, ratio of medians (aim ≤ 1.10) | ${ratio(before.cold.ratio, before.cold.ratioInterval)} | ${ratio(after.cold?.ratio, after.cold?.ratioInterval)} |
| cold start get-item ÷ floor, median per round | ${ratio(before.cold.pairedRatio, before.cold.pairedInterval)} | ${ratio(after.cold?.pairedRatio, after.cold?.pairedInterval)} |
| cold start floor + the libraries ÷ floor | ${ratio(before.cold.librariesRatio)} | ${ratio(after.cold?.librariesRatio)} |
${warmRows.join('\n')}

Largest item handler after: ${KB(largest || undefined)} KB (budget ≤ 300 KB: ${largest > 0 && largest <= 300_000 ? 'met' : '**not met**'}).
The edge adds \`@middy/http-json-body-parser\` and \`@middy/http-header-normalizer\` (with \`@middy/util\`, about
3 KB) and Powertools' logger and metrics middlewares; leaving DynamoDB endpoint discovery out
(\`lib/aws/endpoint-discovery.ts\`, 8.5 KB, from the floor too) more than pays for them.

The warm overheads move with the machine's load from run to run${before.warmAgain ? ' (the before column gives two runs of the same code)' : ''}, by more than
the edge changes: Warm A/B below runs both trees' bundles in one process, alternating, and the edge alone (the two
middleware chains without I/O).
`;
}
