import { loadavg } from 'node:os';
import { envNumber, fmt, pause, raisePriority, table, writeResult } from './common.ts';
import { loadCranfield } from './cranfield.ts';
import { startBenchStack } from './service.ts';

const BURST = envNumber('BENCH_FRESHNESS_BURST', 200);
const CLIENTS = 8;
/** Polling stops there and the run reports what is missing. */
const LIMIT_SECONDS = 600;
raisePriority();

/** A made-up word, letters only, unique per run and item. */
const LETTERS = 'bcdfghjklmnpqrstvwxz';
const letter = (n: number) => LETTERS[n % LETTERS.length];
const runTag = [0, 1, 2].map(() => letter(Math.floor(Math.random() * LETTERS.length))).join('');
const wordOf = (run: number, i: number) =>
  `zy${runTag}${'aeiou'[run % 5]}${[1, 20, 400, 8000].map((unit) => letter(Math.floor(i / unit))).join('')}`;

const { docs } = await loadCranfield();
const stack = await startBenchStack();

/** Creates an item (a 5xx tried again, up to 3 times); its id. */
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

/** Ids found among the results of one query of `words` (none when the query fails: the next round asks again). */
async function retrieve(words: string[]): Promise<Set<number>> {
  const response = await stack.post('/retrieve', stack.reader, { query: words.join(' '), topK: 50 });
  if (response.status !== 200)
    throw new Error(`POST /retrieve answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { results: { item: { id: number } }[] };
  return new Set(body.results.map((r) => r.item.id));
}

/** BURST creates of Cranfield abstracts by CLIENTS at once, then how long until each one is retrievable. */
async function measure() {
  const [name, count] = [`${BURST} creates, ${CLIENTS} concurrent clients (Cranfield abstracts)`, BURST];
  const missing = new Map<number, string>();
  let [next, last201] = [0, 0];
  const loadAtStart = loadavg()[0] ?? 0;
  const begin = performance.now();
  const client = async () => {
    for (let i = next++; i < count; i = next++) {
      const word = wordOf(0, i);
      const text = (docs[(i * 7) % docs.length]?.text ?? '').slice(0, 4900);
      const id = await create({ name: `Freshness probe ${word}`, description: `${text} ${word}` });
      last201 = Math.max(last201, performance.now());
      missing.set(id, word);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const createSeconds = (last201 - begin) / 1000;
  const createsPerSecond = count / createSeconds;
  console.log(`  ${name}: ${count} creates in ${createSeconds.toFixed(1)} s`);

  // Up to 20 words a query, 4 queries at a time.
  let [lastFound, halfFound, lastLog] = [last201, Number.NaN, performance.now()];
  while (missing.size > 0 && performance.now() < last201 + LIMIT_SECONDS * 1000) {
    const ids = [...missing.keys()];
    const queries = [0, 20, 40, 60].map((start) => ids.slice(start, start + 20)).filter((q) => q.length > 0);
    await Promise.all(
      queries.map(async (batch) => {
        const found = await retrieve(batch.map((id) => missing.get(id) ?? '')).catch((error: Error) => {
          console.error(`  ${name}: POST /retrieve failed: ${error.message}`);
          return new Set<number>();
        });
        const at = performance.now();
        for (const id of batch) {
          if (!found.has(id) || !missing.delete(id)) continue;
          lastFound = Math.max(lastFound, at);
          if (Number.isNaN(halfFound) && missing.size <= count / 2) halfFound = at;
        }
      }),
    );
    if (performance.now() - lastLog < 15_000) continue;
    lastLog = performance.now();
    console.log(
      `  ${name}: ${count - missing.size}/${count} retrievable ${((lastLog - last201) / 1000).toFixed(0)} s on`,
    );
  }
  const freshSeconds = missing.size === 0 ? (lastFound - last201) / 1000 : undefined;
  console.log(
    `  ${name}: ${missing.size} missing, all found ${freshSeconds?.toFixed(1)} s after the last 201`,
  );
  const halfSeconds = Math.max(0, (halfFound - last201) / 1000);
  const loadAverage = [loadAtStart, loadavg()[0] ?? 0];
  return { name, createsPerSecond, freshSeconds, halfSeconds, missing: missing.size, loadAverage };
}

const runs: Awaited<ReturnType<typeof measure>>[] = [];
/** DynamoDB Local's own pace before and after the burst: the floor the figures sit on (BENCHMARKS.md). */
const localPace: number[] = [];
try {
  // Warm-up, not measured: serverless-offline starts a worker per function on first use; the runs start once these
  // are indexed, from a warm, idle stack.
  const warm = await Promise.all(
    [...Array(8).keys()].map((i) => create({ name: `Warm-up ${wordOf(9, i)}`, description: 'warm-up' })),
  );
  const deadline = Date.now() + 180_000;
  while (!(await retrieve([wordOf(9, 7)])).has(warm[7] ?? 0)) {
    if (Date.now() > deadline) throw new Error('the warm-up items were not retrievable within 180 s');
    await pause(500);
  }
  await pause(2000);
  localPace.push(await stack.localPutRate());
  runs.push(await measure());
  localPace.push(await stack.localPutRate());
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
const pace = `DynamoDB Local's own rate, small conditional PutItems/s with 32 in flight, before / after the burst: ${localPace.map((r) => fmt(r, 0)).join(' / ')}`;
console.log(pace);
writeResult('freshness', `${markdown}\n\n${pace}`, { runs, localPace });
process.exit(0);
