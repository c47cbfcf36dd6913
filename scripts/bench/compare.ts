// The index write path's benchmarks (bench:ingest, bench:freshness) shown before and after the redesign of
// issue #12: a part's run on the code before it is kept in benchmarks/<part>-before.json (committed, written
// with BENCH_SAVE_BEFORE=1); the latest run (.local/bench/results/<part>.json) is "after". A part's markdown and
// BENCHMARKS.md both come from the functions here, so the two columns always use the same rules.
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandTally } from './capacity.ts';
import { type PartResult, ROOT } from './common.ts';

export const BEFORE_DIR = join(ROOT, 'benchmarks');

/**
 * The code a run measured: the last commit that changed the service's code (lib, functions, infra,
 * serverless.yml; benchmark-only commits do not count), and whether the work tree has changes there.
 */
export function sourceVersion(): { commit: string; dirty: boolean } {
  const paths = '-- lib functions infra serverless.yml';
  try {
    const commit = execSync(`git log -1 --format=%h ${paths}`, { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execSync(`git status --porcelain ${paths}`, { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}

export function loadBefore<T>(part: string): (PartResult & { data: T }) | undefined {
  const file = join(BEFORE_DIR, `${part}-before.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

export function saveBefore(result: PartResult): void {
  mkdirSync(BEFORE_DIR, { recursive: true });
  writeFileSync(join(BEFORE_DIR, `${result.part}-before.json`), `${JSON.stringify(result, null, 2)}\n`);
}

const AWS_KEY_WCU_PER_SECOND = 1000;

interface KeyRow {
  key: string;
  wcuPer1000: number;
  writesPer1000: number;
  transactionsPer1000: number;
}
interface Units {
  wcu: number;
  /** Of wcu, the term dictionary's index writes; absent in runs from before the dictionary. */
  dictionaryWcu?: number;
  reportedWcu: number;
  rcu: number;
}
export interface IngestCollection {
  name: string;
  /** The 1-minute load average of the machine when the collection started and when it settled. */
  loadAverage: [number, number];
  label: string;
  planned: number;
  written: number;
  indexed: number;
  settled: boolean;
  writeSeconds: number;
  /** DynamoDB Local's rate for small conditional PutItems, 32 in flight, before and after the run (absent in runs
   * before it was measured). */
  localPutsPerSecond?: number[];
  seconds: number;
  itemsPerSecond: number;
  consumer: {
    batches: number;
    records: number;
    itemRecords: number;
    retriedBatches: number;
    skippedBatches: number;
  };
  index: Units & { total: number; commands: Record<string, CommandTally> };
  item: Units;
  hotKeys: KeyRow[];
  hotItems: KeyRow[];
  /** The items in the most transactions (absent in runs before it was recorded: hotItems then). */
  transactedItems?: KeyRow[];
  itemHotKeys: KeyRow[];
  edits:
    | {
        count: number;
        settled: boolean;
        seconds: number;
        index: Units;
        item: Units;
        commands: Record<string, CommandTally>;
      }
    | undefined;
  samples: Record<string, unknown>;
}
export interface IngestData {
  commit: string;
  dirty: boolean;
  date: string;
  priority: number;
  writers: number;
  batchLimit: number;
  collections: IngestCollection[];
}

const f = (value: number | undefined, digits = 1) =>
  value === undefined || !Number.isFinite(value)
    ? '—'
    : value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const codeOf = (data: { commit: string; dirty: boolean } | undefined) =>
  data ? `\`${data.commit}\`${data.dirty ? ' + changes' : ''}` : '';

/** The "after" column is empty while the latest run is the "before" run itself. */
function columns<T extends { commit: string; dirty: boolean; date: string }>(
  after: T | undefined,
  before: T | undefined,
): { before: T | undefined; after: T | undefined } {
  const same = after && before && after.date === before.date;
  return { before, after: same ? undefined : after };
}

function keyCell(row: KeyRow | undefined, value: (row: KeyRow) => string): string {
  return row ? `${value(row)} (\`${row.key}\`)` : '—';
}

/** The ingest part: throughput, capacity per new item and per edit, and the capacity model. */
export function ingestMarkdown(
  latest: IngestData | undefined,
  beforeResult: { data: IngestData } | undefined,
): string {
  const { before, after } = columns(latest, beforeResult?.data);
  const names = [
    ...new Set([...(before?.collections ?? []), ...(after?.collections ?? [])].map((c) => c.name)),
  ];
  const rows: string[] = [];
  const row = (label: string, cell: (c: IngestCollection) => string, name: string) => {
    const pick = (data: IngestData | undefined) => data?.collections.find((c) => c.name === name);
    const b = pick(before);
    const a = pick(after);
    rows.push(`| ${label} | ${b ? cell(b) : '—'} | ${a ? cell(a) : '—'} |`);
  };
  for (const name of names) {
    rows.push(`| **${name}** | | |`);
    row('items indexed', (c) => `${c.label}${c.settled ? '' : `: ${c.indexed} before the time limit`}`, name);
    row('wall time, first create → index settled (s)', (c) => f(c.seconds), name);
    row('**items/s** (indexed ÷ wall time)', (c) => `**${f(c.itemsPerSecond, 2)}**`, name);
    row('… of which writing the items (s; 8 writers)', (c) => f(c.writeSeconds), name);
    row('index settled after the last item was written (s)', (c) => f(c.seconds - c.writeSeconds), name);
    row(
      'index requests per new item',
      (c) => f(Object.values(c.index.commands).reduce((sum, command) => sum + command.calls, 0) / c.indexed),
      name,
    );
    row(
      "DynamoDB Local's own rate: small conditional PutItems/s, 32 in flight (before / after the run)",
      (c) =>
        Array.isArray(c.localPutsPerSecond)
          ? c.localPutsPerSecond.map((rate) => f(rate, 0)).join(' / ')
          : '—',
      name,
    );
    row(
      'index WCU per new item (AWS rule; DynamoDB Local reported)',
      (c) => `${f(c.index.wcu)} (${f(c.index.reportedWcu)})`,
      name,
    );
    row(
      "of which the term dictionary's index writes",
      (c) => (c.index.dictionaryWcu === undefined ? '— (no dictionary)' : f(c.index.dictionaryWcu)),
      name,
    );
    row('index RCU per new item', (c) => f(c.index.rcu), name);
    row("the item's own WCU / RCU per create", (c) => `${f(c.item.wcu)} / ${f(c.item.rcu)}`, name);
    row(
      'index WCU per edit (AWS rule; Local reported)',
      (c) =>
        c.edits ? `${f(c.edits.index.wcu)} (${f(c.edits.index.reportedWcu)}), ${c.edits.count} edits` : '—',
      name,
    );
    row('index RCU per edit', (c) => (c.edits ? f(c.edits.index.rcu) : '—'), name);
    row('edits: wall time until indexed (s)', (c) => (c.edits ? f(c.edits.seconds) : '—'), name);
    row(
      'hottest partition key: WCU per 1,000 items',
      (c) => keyCell(c.hotKeys[0], (k) => f(k.wcuPer1000, 0)),
      name,
    );
    row(
      'ingest ceiling at 1,000 WCU/s on that key (items/s)',
      (c) => keyCell(c.hotKeys[0], (k) => f((AWS_KEY_WCU_PER_SECOND / k.wcuPer1000) * 1000, 0)),
      name,
    );
    row('hottest item: WCU per 1,000 items', (c) => keyCell(c.hotItems[0], (k) => f(k.wcuPer1000, 0)), name);
    row(
      'ingest ceiling at 1,000 WCU/s on that item (items/s)',
      (c) => keyCell(c.hotItems[0], (k) => f((AWS_KEY_WCU_PER_SECOND / k.wcuPer1000) * 1000, 0)),
      name,
    );
    row(
      'transactions (incl. cancelled) on the most transacted item per 1,000 items',
      (c) => {
        const top = [...(c.transactedItems ?? c.hotItems)].sort(
          (x, y) => y.transactionsPer1000 - x.transactionsPer1000,
        )[0];
        return keyCell(top, (k) => f(k.transactionsPer1000, 0));
      },
      name,
    );
    row(
      'machine load average (1 min) at start / end',
      (c) => `${f(c.loadAverage[0])} / ${f(c.loadAverage[1])}`,
      name,
    );
    row(
      'stream: batches, records read (item records)',
      (c) =>
        `${c.consumer.batches.toLocaleString('en')}, ${c.consumer.records.toLocaleString('en')} (${c.consumer.itemRecords.toLocaleString('en')})${c.consumer.retriedBatches ? `; ${c.consumer.retriedBatches} retried` : ''}`,
      name,
    );
  }

  const hotList = (data: IngestData | undefined, which: string) =>
    (data?.collections ?? [])
      .map(
        (c) =>
          `- ${which} run, ${c.label}: ${c.hotKeys
            .slice(0, 4)
            .map(
              (k) => `\`${k.key}\` ${f(k.wcuPer1000, 0)} WCU / ${f(k.transactionsPer1000, 0)} transactions`,
            )
            .join('; ')} (per 1,000 items); the items' own writes: ${c.itemHotKeys
            .slice(0, 2)
            .map((k) => `\`${k.key}\` ${f(k.wcuPer1000, 0)} WCU`)
            .join(', ')}`,
      )
      .join('\n');

  const targets = (() => {
    const c = after?.collections.find((x) => x.name === 'cranfield');
    const b = before?.collections.find((x) => x.name === 'cranfield');
    if (!c) return 'Targets (issue #12) are judged on the "after" run: none yet.';
    const speedup = b ? b.seconds / c.seconds : Number.NaN;
    const yes = (ok: boolean) => (ok ? 'met' : '**not met**');
    const hotRows = (after?.collections ?? [])
      .map((x) => {
        const pk = x.hotKeys[0]?.wcuPer1000 ?? Number.NaN;
        const item = x.hotItems[0]?.wcuPer1000 ?? Number.NaN;
        return `| hottest key ≤ 0.1 WCU per item ingested (${x.label}) | partition key ${f(pk / 1000, 3)}, item ${f(item / 1000, 3)} | ${yes(pk <= 100)} |`;
      })
      .join('\n');
    return `| target (issue #12) | after | verdict |
|---|---|---|
| Cranfield ingest ≥ 20 × faster than before (same harness, separate runs: see the load averages) | ${f(speedup)} × | ${yes(speedup >= 20)} |
| Cranfield ingest ≤ 19 s (the issue's 377 s ÷ 20) | ${f(c.seconds)} s from the first create (${f(c.writeSeconds)} s of it writing the items), ${f(c.seconds - c.writeSeconds)} s after the last | ${yes(c.seconds <= 19)} |
| ≤ 40 WCU per new Cranfield-sized item | ${f(c.index.wcu)} | ${yes(c.index.wcu <= 40)} |
${hotRows}`;
  })();

  return `## Ingest (stream consumer on DynamoDB Local)

\`npm run bench:ingest\`. Per collection a fresh in-memory DynamoDB Local and table with its stream; the items are
written with the items repository (${latest?.writers ?? 8} concurrent writers), while DynamoDB Local's stream is read as
\`scripts/local/stream-consumer.ts\` reads it (batches of up to ${latest?.batchLimit ?? 100} item records, as serverless.yml's batchSize; the "before" run read 100 records of any kind a batch) and every
batch is handed to \`indexChanges(indexer, records)\` with the indexer the handler builds. The clock runs from the first
create until the index has settled (every item indexed at its version, N right). Capacity: every command of the
index (and, apart, of the item writes) asks for \`ReturnConsumedCapacity\`; WCU are costed by AWS's rules per item
written (max of old and new size, 2 × inside a transaction) because DynamoDB Local's totals for multi-item
transactions are not AWS's (it charges a transaction about 2 × its largest item; its own figure is in brackets).
Edits: ${latest?.collections[0]?.edits?.count ?? 100} items spread over the collection, each a patch appending words to the description (its
length changes), indexed the same way. "Before": ${codeOf(before)}${before ? ` on ${before.date.slice(0, 10)}` : ' not measured'}; "after": ${after ? `${codeOf(after)} on ${after.date.slice(0, 10)}` : 'not yet measured'}.

The local stream carries every write, the index's own included (Lambda's filterPatterns keep only items on AWS). The
"before" consumer read 100 records of any kind a batch, so its batches held few items once the index writes
interleaved; the "after" consumer counts a batch in item records, as the filter does: see the records row. A run of
one collection keeps the other's latest figures (its commit may be older; the index code is the same). The load-average rows show how busy the shared 2-core
machine was (other developers' test suites); compare before and after at similar loads, or re-run both back to
back: \`git checkout e22c453 -- lib functions infra serverless.yml && BENCH_SAVE_BEFORE=1 npm run bench:ingest;
git checkout HEAD -- lib functions infra serverless.yml\`, then \`npm run bench:ingest\`.

Reproduce: \`npm run bench:ingest\` (both collections, all 10,000 synthetic items); the "before" column was run with
\`BENCH_INGEST_SYNTHETIC=1000 BENCH_SAVE_BEFORE=1 npm run bench:ingest\` (the first 1,000 synthetic items only: all
10,000 would take ~40 minutes or more on that code). One collection: \`BENCH_INGEST_COLLECTIONS=cranfield\`.

| | before | after |
|---|---|---|
${rows.join('\n')}

${targets}

### Capacity model

Every write's partition key is recorded with its WCU (AWS's rule, per item written; a transaction's units are
the sum of its items', each item's own going to its key). A partition key takes at most 1,000 WCU/s on AWS, so a
key written W WCU per 1,000 items caps ingest at 1,000,000 / W items/s. An item's key cannot be split, a
partition key's sort-key range may be (split for heat), so the hottest *item* is the hard bound. The other bound:
transactions that touch one item are applied one at a time (a conflicting transaction is cancelled and retried),
so T transactions on the most transacted item per 1,000 items allow at most 1,000,000 / (T × t) items/s when
each takes t ms (e.g. T = 1,000 and t ≈ 12–25 ms: 40–80 items/s). Hottest keys, per 1,000 items ingested:

${hotList(before, 'Before')}
${hotList(after, 'After')}
`;
}

export interface FreshnessRun {
  name: string;
  creates: number;
  clients: number;
  descriptionChars: number;
  createSeconds: number;
  createsPerSecond: number;
  /** Seconds from the last 201 until every created item was retrievable (undefined: not within the limit). */
  freshSeconds: number | undefined;
  /** Seconds from the last 201 until half the items were retrievable. */
  halfSeconds: number | undefined;
  missing: number;
  retrieveCalls: number;
  /** Polling queries that failed or timed out (they count as finding nothing). */
  retrieveErrors?: number;
  /** The machine's 1-minute load average at the first create and when the last item was found. */
  loadAverage?: [number, number];
}
export interface FreshnessData {
  commit: string;
  dirty: boolean;
  date: string;
  runs: FreshnessRun[];
}

/** The freshness part: creates over HTTP, then the time until every one is retrievable. */
export function freshnessMarkdown(
  latest: FreshnessData | undefined,
  beforeResult: { data: FreshnessData } | undefined,
): string {
  const { before, after } = columns(latest, beforeResult?.data);
  const names = [...new Set([...(before?.runs ?? []), ...(after?.runs ?? [])].map((r) => r.name))];
  const rows: string[] = [];
  for (const name of names) {
    const b = before?.runs.find((r) => r.name === name);
    const a = after?.runs.find((r) => r.name === name);
    const cell = (r: FreshnessRun | undefined, value: (r: FreshnessRun) => string) => (r ? value(r) : '—');
    const line = (label: string, value: (r: FreshnessRun) => string) =>
      rows.push(`| ${label} | ${cell(b, value)} | ${cell(a, value)} |`);
    rows.push(`| **${name}** | | |`);
    line('creates/s achieved', (r) => f(r.createsPerSecond));
    line('**seconds from the last 201 until all are retrievable**', (r) =>
      r.freshSeconds === undefined
        ? `not within the limit (${r.missing} missing)`
        : `**${f(r.freshSeconds)}**`,
    );
    line('… until half are retrievable', (r) => f(r.halfSeconds));
    line('machine load average (1 min) at start / end', (r) =>
      r.loadAverage ? `${f(r.loadAverage[0])} / ${f(r.loadAverage[1])}` : '—',
    );
  }
  const burst = after?.runs.find((r) => r.clients > 1);
  const verdict = burst
    ? `Target (issue #12): freshness ≤ 2 s after the 200-create burst: ${f(burst.freshSeconds)} s, ${burst.freshSeconds !== undefined && burst.freshSeconds <= 2 ? 'met' : '**not met**'}.`
    : 'Target (issue #12): freshness ≤ 2 s after the 200-create burst: judged on the "after" run (none yet).';
  return `## Freshness (HTTP, \`npm start\`'s stack)

\`npm run bench:freshness\`. \`npm start\`'s stack on free ports (DynamoDB Local in memory, serverless-offline, the
stream consumer of scripts/local/stream-consumer.ts), tokens from a fresh local issuer (RS256, editor and reader).
After a warm-up (8 creates, indexed), each item gets a unique made-up word in its name and description; from the
last 201 of the creates (POST /items, editor token), POST /retrieve (reader token) is polled with the words not yet
found (up to 20 words a query, topK 50, 4 queries at a time) until every item is among the results. Burst: 200
creates from 8 concurrent clients (Cranfield abstracts as descriptions); sequential: 300 creates one after another
with README sections as descriptions (≤ 4,900 characters), on the same stack after the burst has settled. "Before": ${codeOf(before)}${before ? ` on ${before.date.slice(0, 10)}` : ' not measured'}; "after": ${after ? `${codeOf(after)} on ${after.date.slice(0, 10)}` : 'not yet measured'}.
Reproduce: \`npm run bench:freshness\` (\`BENCH_SAVE_BEFORE=1\` kept the before run). Mind the load-average rows:
the stack's consumer times out (2 s per request) and retries whole batches when the machine is this busy.

| | before | after |
|---|---|---|
${rows.join('\n')}

${verdict}
`;
}
