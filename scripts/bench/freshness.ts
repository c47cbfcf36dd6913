// `npm run bench:freshness`: how soon a new item can be retrieved, over HTTP through `npm start`'s stack (on free
// ports: DynamoDB Local in memory, serverless-offline, the stream consumer). Each item carries a unique made-up
// word in its name and description. Burst: 200 creates (POST /items, editor token) from 8 concurrent clients;
// sequential: 300 creates one after another with README-sized descriptions (≤ 4,900 characters). After the last
// 201, POST /retrieve (reader token) is polled with the words not yet found — up to 20 words a query, topK 50, 4
// queries at a time — until every item is among the results; measured from the last 201 to the answer that found
// the last item. Options: BENCH_FRESHNESS_RUNS (burst,sequential), BENCH_FRESHNESS_LIMIT_SECONDS (600: polling
// stops there and the run reports what is missing), BENCH_FRESHNESS_BURST (200), BENCH_FRESHNESS_SEQUENTIAL (300).
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { envList, envNumber, fmt, pause, ROOT, raisePriority, table, writeResult } from './common.ts';
import { loadCranfield } from './cranfield.ts';
import { startBenchStack } from './service.ts';

const RUNS = envList('BENCH_FRESHNESS_RUNS', 'burst,sequential');
const LIMIT_SECONDS = envNumber('BENCH_FRESHNESS_LIMIT_SECONDS', 600);
/** Creates of each run (smaller for a quick check of the harness; the figures are for 200 and 300). */
const BURST = envNumber('BENCH_FRESHNESS_BURST', 200);
const SEQUENTIAL = envNumber('BENCH_FRESHNESS_SEQUENTIAL', 300);
const WORDS_PER_QUERY = 20;
const POLLERS = 4;
const started = Date.now();
raisePriority();

/** A made-up word, letters only, unique per run and item (no stopword, no other item's word). */
const LETTERS = 'bcdfghjklmnpqrstvwxz';
const runTag = Array.from({ length: 3 }, () => LETTERS[Math.floor(Math.random() * LETTERS.length)]).join('');
const wordOf = (run: number, i: number) => {
  let word = '';
  for (let n = i, k = 0; k < 4; k++, n = Math.floor(n / LETTERS.length)) word += LETTERS[n % LETTERS.length];
  return `zy${runTag}${'aeiou'[run % 5]}${word}`;
};

/** Descriptions: Cranfield abstracts for the burst, README sections (≤ 4,900 characters) for the sequential run. */
const { docs } = await loadCranfield();
const readmeSections = readFileSync(join(ROOT, 'README.md'), 'utf8')
  .split(/\n(?=## )/)
  .map((section) => section.slice(0, 4900 - 40).trim())
  .filter((section) => section.length > 200);

const stack = await startBenchStack();

/** Creates an item (a 5xx is tried again, up to 3 times); its id. */
async function create(fields: { name: string; description: string }): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const response = await stack.post('/items', stack.editor, { ...fields, tags: ['freshness'] });
    const body = (await response.json()) as { id?: number };
    if (response.status === 201 && typeof body.id === 'number') return body.id;
    if (attempt >= 3 || response.status < 500)
      throw new Error(`POST /items answered ${response.status}: ${JSON.stringify(body)}`);
    await pause(200);
  }
}

/** Ids found among the results of one query of `words`. */
async function retrieve(words: string[]): Promise<Set<number>> {
  const response = await stack.post('/retrieve', stack.reader, { query: words.join(' '), topK: 50 });
  if (response.status !== 200)
    throw new Error(`POST /retrieve answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { results: { item: { id: number } }[] };
  return new Set(body.results.map((r) => r.item.id));
}

async function measure(
  name: string,
  run: number,
  count: number,
  clients: number,
  description: (i: number) => string,
) {
  const wordOfId = new Map<number, string>();
  let next = 0;
  let last201 = 0;
  const loadAtStart = loadavg()[0] ?? 0;
  const begin = performance.now();
  const client = async () => {
    for (let i = next++; i < count; i = next++) {
      const word = wordOf(run, i);
      const id = await create({ name: `Freshness probe ${word}`, description: `${description(i)} ${word}` });
      last201 = Math.max(last201, performance.now());
      wordOfId.set(id, word);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const createSeconds = (last201 - begin) / 1000;
  console.log(
    `  ${name}: ${count} creates in ${createSeconds.toFixed(1)} s (${(count / createSeconds).toFixed(1)}/s)`,
  );

  const missing = new Map(wordOfId);
  let [retrieveCalls, retrieveErrors, lastFound] = [0, 0, last201];
  let halfFound: number | undefined;
  const deadline = last201 + LIMIT_SECONDS * 1000;
  let lastLog = performance.now();
  while (missing.size > 0 && performance.now() < deadline) {
    const ids = [...missing.keys()];
    const queries: number[][] = [];
    for (let start = 0; start < ids.length && queries.length < POLLERS; start += WORDS_PER_QUERY)
      queries.push(ids.slice(start, start + WORDS_PER_QUERY));
    await Promise.all(
      queries.map(async (batch) => {
        retrieveCalls++;
        // A failed or timed-out query (a loaded machine) finds nothing this round; the next round asks again.
        const found = await retrieve(batch.map((id) => missing.get(id) ?? '')).catch((error: Error) => {
          retrieveErrors++;
          console.error(`  ${name}: POST /retrieve failed: ${error.message}`);
          return new Set<number>();
        });
        const at = performance.now();
        for (const id of batch) {
          if (!found.has(id) || !missing.delete(id)) continue;
          lastFound = Math.max(lastFound, at);
          if (halfFound === undefined && missing.size <= count / 2) halfFound = at;
        }
      }),
    );
    if (performance.now() - lastLog > 15_000) {
      lastLog = performance.now();
      const after = ((performance.now() - last201) / 1000).toFixed(0);
      console.log(`  ${name}: ${count - missing.size}/${count} retrievable ${after} s after the last 201`);
    }
  }
  const freshSeconds = missing.size === 0 ? (lastFound - last201) / 1000 : undefined;
  console.log(
    `  ${name}: ${freshSeconds === undefined ? `${missing.size} not retrievable within ${LIMIT_SECONDS} s` : `all retrievable ${freshSeconds.toFixed(1)} s after the last 201`}`,
  );
  return {
    name,
    createsPerSecond: count / createSeconds,
    /** Seconds from the last 201 until every created item was retrievable (undefined: not within the limit). */
    freshSeconds,
    halfSeconds: halfFound === undefined ? undefined : Math.max(0, (halfFound - last201) / 1000),
    missing: missing.size,
    retrieveCalls,
    retrieveErrors,
    /** The machine's 1-minute load average at the first create and when the last item was found. */
    loadAverage: [loadAtStart, loadavg()[0] ?? 0],
  };
}

const runs: Awaited<ReturnType<typeof measure>>[] = [];
try {
  // Warm-up, not measured: serverless-offline starts a worker per function on first use; wait until the consumer
  // has indexed these too, so the runs start from a warm, idle stack.
  const warm = await Promise.all(
    Array.from({ length: 8 }, (_, i) => create({ name: `Warm-up ${wordOf(9, i)}`, description: 'warm-up' })),
  );
  const warmDeadline = Date.now() + 180_000;
  while (!(await retrieve([wordOf(9, 7)])).has(warm[7] ?? 0)) {
    if (Date.now() > warmDeadline) throw new Error('the warm-up items were not retrievable within 180 s');
    await pause(500);
  }
  await pause(2000);
  for (const [run, kind] of RUNS.entries()) {
    if (kind === 'burst') {
      const abstract = (i: number) => (docs[(i * 7) % docs.length]?.text ?? '').slice(0, 4900);
      runs.push(
        await measure(
          `${BURST} creates, 8 concurrent clients (Cranfield abstracts)`,
          run,
          BURST,
          8,
          abstract,
        ),
      );
    } else if (kind === 'sequential') {
      const name = `${SEQUENTIAL} sequential creates (README sections, ≤ 4,900 characters)`;
      runs.push(
        await measure(name, run, SEQUENTIAL, 1, (i) => readmeSections[i % readmeSections.length] ?? ''),
      );
    } else {
      throw new Error(`unknown run ${kind} (burst, sequential)`);
    }
  }
} finally {
  await stack.stop();
}

const head = ['run', 'creates/s', 'seconds from the last 201 until all are retrievable', '… until half are'];
const markdown = table(
  [...head, 'load average at start / end'],
  runs.map((r) => [
    r.name,
    fmt(r.createsPerSecond),
    r.freshSeconds === undefined
      ? `not within the limit (${r.missing} missing)`
      : `**${fmt(r.freshSeconds)}**`,
    fmt(r.halfSeconds),
    r.loadAverage.map((x) => fmt(x)).join(' / '),
  ]),
);
writeResult('freshness', markdown, runs, started);
process.exit(0);
