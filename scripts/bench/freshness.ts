import { loadavg } from 'node:os';
import { mapLimit } from '../../lib/concurrency.ts';
import { GROUPS_IN_FLIGHT } from '../../lib/dynamodb/write-groups.ts';
import { homeOf, indexTerms, itemText, STEPS } from '../../lib/search/index.ts';
import { LOCAL_WRITES_PER_TRANSACTION } from '../local/env.ts';
import { close, envNumber, fmt, pause, raisePriority, table, writeResult } from './common.ts';
import { sampleCpu } from './cpu.ts';
import { cranfieldWrite, loadCranfield, rankerInMemory } from './cranfield.ts';
import { type ConsumerBatch, startBenchStack } from './service.ts';

const BURST = envNumber('BENCH_FRESHNESS_BURST', 200);
const CLIENTS = 8;
/** Cranfield's first queries, whose answers must equal an exhaustive BM25's for the index to count as settled. */
const SETTLE_QUERIES = 30;
/** A round of them starts this often at most (BENCH_ROUND_MS: a lighter poll, to see what the poll costs). */
const ROUND_MS = envNumber('BENCH_ROUND_MS', 2_000);
/**
 * A round of the burst's probes starts this often at most: a probe finds an item at most this late
 * (BENCH_PROBE_ROUND_MS, likewise).
 */
const PROBE_ROUND_MS = envNumber('BENCH_PROBE_ROUND_MS', 250);
const TAGS = ['freshness'];
/** Polling stops there and the run reports what is missing. */
const LIMIT_SECONDS = 600;
raisePriority();

/** A made-up word, letters only, unique per run and item. */
const LETTERS = 'bcdfghjklmnpqrstvwxz';
const letter = (n: number) => LETTERS[n % LETTERS.length];
const runTag = [0, 1, 2].map(() => letter(Math.floor(Math.random() * LETTERS.length))).join('');
const wordOf = (run: number, i: number) =>
  `zy${runTag}${'aeiou'[run % 5]}${[1, 20, 400, 8000].map((unit) => letter(Math.floor(i / unit))).join('')}`;

const { docs, queries } = await loadCranfield();
const stack = await startBenchStack();
/** The CPU the stack's parts and this client take: the two cores are shared by all of them. */
const cpu = sampleCpu(stack.pids);
type Fields = { name: string; description: string };
/** Every item the run created: an exhaustive BM25 ranks them all. */
const created: { id: number; fields: Fields }[] = [];

/**
 * The index format's floor for a burst: each home record its items' terms live in is written once, by a conditional
 * write, and each item's doc record once ahead (docs/index-format.md, the writer's protocol).
 */
function writesAtLeast(items: readonly Fields[]) {
  const homes = new Set<string>();
  for (const fields of items)
    for (const term of indexTerms(itemText({ ...fields, tags: TAGS })).tokens) homes.add(homeOf(term));
  return { homes: homes.size, writes: homes.size + items.length };
}

/** Creates an item (a 5xx tried again, up to 3 times); its id. */
async function create(fields: Fields): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const response = await stack.post('/items', stack.editor, { ...fields, tags: TAGS });
    const body = (await response.json()) as { id?: number };
    if (response.status === 201 && typeof body.id === 'number') {
      created.push({ id: body.id, fields });
      return body.id;
    }
    if (attempt >= 3 || response.status < 500)
      throw new Error(`POST /items answered ${response.status}: ${JSON.stringify(body)}`);
    await pause(200);
  }
}

/** The top `topK` of `query`: each result's item id and score. */
async function retrieve(query: string, topK: number): Promise<{ id: number; score: number }[]> {
  const response = await stack.post('/retrieve', stack.reader, { query, topK, minScore: 0 });
  if (response.status !== 200)
    throw new Error(`POST /retrieve answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { results: { score: number; item: { id: number } }[] };
  return body.results.map((r) => ({ id: r.item.id, score: r.score }));
}
/** Ids found among the results of one query of `words`. */
const found = async (words: string[]) => new Set((await retrieve(words.join(' '), 50)).map((r) => r.id));

/** A time of `performance.now()` as epoch ms, the consumer's metrics' clock. */
const epoch = (at: number) => performance.timeOrigin + at;
/** A run's span: its first create, its last 201, and when it was done (found, settled), in epoch ms. */
type Window = { from: number; last201: number; to: number };

const noop = (_id: number, _i: number) => {};
/** `count` creates by CLIENTS at once, the `i`th of `fieldsOf(i)`, each id told `onCreated`; when the last 201 came. */
async function createAll(name: string, count: number, fieldsOf: (i: number) => Fields, onCreated = noop) {
  const begin = performance.now();
  const latest = { last201: begin };
  await mapLimit([...Array(count).keys()], CLIENTS, async (i) => {
    const id = await create(fieldsOf(i));
    latest.last201 = Math.max(latest.last201, performance.now());
    onCreated(id, i);
  });
  const seconds = (latest.last201 - begin) / 1000;
  console.log(`  ${name}: ${count} creates in ${seconds.toFixed(1)} s`);
  return { begin, last201: latest.last201, createsPerSecond: count / seconds };
}

/** BURST creates of Cranfield abstracts by CLIENTS at once, then how long until each one is retrievable. */
async function measure() {
  const [name, count] = [`${BURST} creates, ${CLIENTS} concurrent clients (Cranfield abstracts)`, BURST];
  const missing = new Map<number, string>();
  const fieldsOf = (i: number) => {
    const word = wordOf(0, i);
    const text = (docs[(i * 7) % docs.length]?.text ?? '').slice(0, 4900);
    return { name: `Freshness probe ${word}`, description: `${text} ${word}` };
  };
  const loadAtStart = loadavg()[0] ?? 0;
  const { begin, last201, createsPerSecond } = await createAll(name, count, fieldsOf, (id, i) =>
    missing.set(id, wordOf(0, i)),
  );

  // Up to 20 words a query, 4 queries at a time.
  let [lastFound, halfFound, lastLog] = [last201, Number.NaN, performance.now()];
  const probes = { failed: 0 };
  while (missing.size > 0 && performance.now() < last201 + LIMIT_SECONDS * 1000) {
    // Paced for the reason the settle poll is (below): unpaced, the probes took a core from the indexing.
    const next = performance.now() + PROBE_ROUND_MS;
    const ids = [...missing.keys()];
    const queries = [0, 20, 40, 60].map((start) => ids.slice(start, start + 20)).filter((q) => q.length > 0);
    await Promise.all(
      queries.map(async (batch) => {
        const ids = await found(batch.map((id) => missing.get(id) ?? '')).catch((error: Error) => {
          probes.failed++;
          console.error(`  ${name}: POST /retrieve failed: ${error.message}`);
          return new Set<number>();
        });
        const at = performance.now();
        for (const id of batch) {
          if (!ids.has(id) || !missing.delete(id)) continue;
          lastFound = Math.max(lastFound, at);
          if (Number.isNaN(halfFound) && missing.size <= count / 2) halfFound = at;
        }
      }),
    );
    await pause(next - performance.now());
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
  const floor = writesAtLeast(Array.from({ length: count }, (_, i) => fieldsOf(i)));
  const window = { from: epoch(begin), last201: epoch(last201), to: epoch(lastFound) };
  return {
    name,
    createsPerSecond,
    freshSeconds,
    halfSeconds,
    missing: missing.size,
    failedProbes: probes.failed,
    loadAverage,
    floor,
    window,
  };
}

/** The same scores rank by rank (items tied at a score may come in either order). */
const sameAnswer = (got: { score: number }[], want: { score: number }[]) =>
  got.length === want.length && got.every((result, i) => close(result.score, want[i]?.score ?? Number.NaN));

/**
 * Cranfield's documents created by CLIENTS at once, then how long until each of SETTLE_QUERIES of its queries
 * answers as an exhaustive BM25 over every item of the run does: every item's postings and counts in place.
 */
async function settle() {
  const name = `Cranfield's ${fmt(docs.length, 0)} creates, ${CLIENTS} concurrent clients`;
  const { begin, last201, createsPerSecond } = await createAll(name, docs.length, (i) => {
    const { name: title, description } = cranfieldWrite(docs[i] as (typeof docs)[number]);
    return { name: title, description };
  });
  const truth = rankerInMemory(
    created.map(({ id, fields }) => ({ id, text: itemText({ ...fields, tags: TAGS }) })),
  );
  const asked = queries.slice(0, SETTLE_QUERIES).map((query) => query.text);
  const expected = await Promise.all(asked.map((query) => truth(query, 10)));
  for (let round = 1; performance.now() < last201 + LIMIT_SECONDS * 1000; round++) {
    // A round every ROUND_MS at most: asked as fast as answers come, the poll's own load would depend on how cheap
    // an answer is (a container's kept answers), and take the machine's two cores from the indexing it measures.
    const next = performance.now() + ROUND_MS;
    const answers = await mapLimit(asked, 4, (query) => retrieve(query, 10).catch(() => []));
    const settled = answers.filter((answer, i) => sameAnswer(answer, expected[i] ?? [])).length;
    const seconds = (performance.now() - last201) / 1000;
    if (settled === asked.length) {
      const window = { from: epoch(begin), last201: epoch(last201), to: epoch(performance.now()) };
      return { name, createsPerSecond, settledSeconds: seconds, window };
    }
    if (round % 10 === 0)
      console.log(`  ${name}: ${settled}/${asked.length} answers settled ${seconds.toFixed(0)} s on`);
    await pause(next - performance.now());
  }
  return { name, createsPerSecond, settledSeconds: undefined, window: undefined };
}

/**
 * Where a run's indexing time went, by the consumer's batches that began within its window (first create → done):
 * their items, passes, writes, requests and retries, the seconds of each step of their passes, and the seconds
 * between batches (the stream's polls and reads: the consumer runs one batch at a time), over the window and after
 * its last 201, with the writes made after it.
 */
function timeSpent(batches: readonly ConsumerBatch[], { from, last201, to }: Window) {
  const within = batches.filter((batch) => batch.begin >= from && batch.begin < to);
  const sum = (name: string) => within.reduce((total, batch) => total + (batch.figures[name] ?? 0), 0);
  /** A batch's milliseconds within the window from `since` on. */
  const timeFrom = (batch: ConsumerBatch, since: number) =>
    Math.max(0, Math.min(batch.end, to) - Math.max(batch.begin, since));
  const busy = (since: number) => within.reduce((ms, batch) => ms + timeFrom(batch, since), 0) / 1000;
  const steps = Object.fromEntries(STEPS.map((step) => [step, sum(`${step}Ms`) / 1000]));
  const stepsTotal = Object.values(steps).reduce((total, seconds) => total + seconds, 0);
  const [indexing, indexingAfter] = [busy(from), busy(last201)];
  // The writes of the batches after the last 201; the one running then counted by its share of time after it.
  const writesAfter = within.reduce(
    (total, batch) =>
      total +
      (timeFrom(batch, last201) / (batch.end - batch.begin || 1)) * (batch.figures.dynamodbWrites ?? 0),
    0,
  );
  const writes = sum('dynamodbWrites');
  // Every step writes but planning, which only reads.
  const writing = STEPS.filter((step) => step !== 'plan').reduce(
    (total, step) => total + (steps[step] ?? 0),
    0,
  );
  return {
    batches: within.map((batch) => batch.figures.indexedItems ?? 0),
    passes: sum('passes'),
    writes,
    writesPerSecond: writes / (writing || 1),
    requestsPerItem: sum('dynamodbRequests') / sum('indexedItems'),
    retries: sum('dynamodbRetries'),
    slowPasses: sum('slowPasses'),
    splits: sum('batchSplits'),
    steps: { ...steps, other: sum('batchLatency') / 1000 - stepsTotal },
    indexing,
    between: (to - from) / 1000 - indexing,
    afterLast201: {
      indexing: indexingAfter,
      between: (to - last201) / 1000 - indexingAfter,
      writes: writesAfter,
    },
  };
}

/** A run with DynamoDB Local's pace in the stream consumer's shape, measured right before it and right after it. */
type Paced<T> = T & { paceBefore: number; paceAfter: number };
const runs: Paced<Awaited<ReturnType<typeof measure>>>[] = [];
const settles: Paced<Awaited<ReturnType<typeof settle>>>[] = [];
/**
 * DynamoDB Local's own pace before and after the burst and after Cranfield, one put a request and in the stream
 * consumer's transactions: the floor the figures sit on (BENCHMARKS.md).
 */
const localPace = { single: [] as number[], grouped: [] as number[], groupedCores: [] as number[] };
/** How the stream consumer sends its writes: in transactions, GROUPS_IN_FLIGHT at once, or one a request. */
const GROUPED = LOCAL_WRITES_PER_TRANSACTION > 1;
const measurePace = async () => {
  const single = await stack.localPutRate();
  localPace.single.push(single);
  const from = cpu.mark();
  localPace.grouped.push(
    GROUPED
      ? await stack.localPutRate({ perTransaction: LOCAL_WRITES_PER_TRANSACTION, inFlight: GROUPS_IN_FLIGHT })
      : single,
  );
  // DynamoDB Local's cores for its own pace: beside its cores while the stack indexes, what a write costs it.
  if (GROUPED) localPace.groupedCores.push(cpu.coresUsed(from, cpu.mark()).dynamodb);
};
/** Runs `run`, the pace measured before it (the last measured) and after it. */
async function paced<T>(run: () => Promise<T>): Promise<Paced<T>> {
  const paceBefore = localPace.grouped.at(-1) ?? 0;
  const result = await run();
  await measurePace();
  return { ...result, paceBefore, paceAfter: localPace.grouped.at(-1) ?? 0 };
}
/** The stream batches the consumer indexed during the whole run. */
const batches: ConsumerBatch[] = [];
try {
  // Warm-up, not measured: serverless-offline starts a worker per function on first use; the runs start once these
  // are indexed, from a warm, idle stack.
  const warm = await Promise.all(
    [...Array(8).keys()].map((i) => create({ name: `Warm-up ${wordOf(9, i)}`, description: 'warm-up' })),
  );
  const deadline = Date.now() + 180_000;
  while (!(await found([wordOf(9, 7)])).has(warm[7] ?? 0)) {
    if (Date.now() > deadline) throw new Error('the warm-up items were not retrievable within 180 s');
    await pause(500);
  }
  await pause(2000);
  await measurePace();
  runs.push(await paced(measure));
  settles.push(await paced(settle));
  batches.push(...stack.consumerBatches());
} finally {
  cpu.stop();
  await stack.stop();
}

/** Seconds in bold, or that the run fell short of the limit (and by what). */
const within = (seconds: number | undefined, short = '') =>
  seconds === undefined ? `not within the limit${short}` : `**${fmt(seconds)}**`;
const head = ['run', 'creates/s', 'seconds from the last 201 until all are retrievable', '… until half are'];
const markdown = table(
  [...head, 'probes failed (no answer in 60 s)', 'load average at start / end'],
  runs.map((r) => [
    r.name,
    fmt(r.createsPerSecond),
    within(r.freshSeconds, ` (${r.missing} missing)`),
    fmt(r.halfSeconds),
    r.failedProbes,
    r.loadAverage.map((x) => fmt(x)).join(' / '),
  ]),
);
const settledHead = `seconds from the last 201 until ${SETTLE_QUERIES} queries answer as an exhaustive BM25`;
const settled = table(
  ['run', 'creates/s', settledHead],
  settles.map((r) => [r.name, fmt(r.createsPerSecond), within(r.settledSeconds)]),
);
const paces = (rates: number[]) => rates.map((r) => fmt(r, 0)).join(' / ');
const shape = GROUPED
  ? `${LOCAL_WRITES_PER_TRANSACTION} a transaction, ${GROUPS_IN_FLIGHT} in flight`
  : 'one a request, 32 in flight';
const pace =
  `DynamoDB Local's own rate, small conditional PutItems/s before the burst / after it / after Cranfield: one a ` +
  `request, 32 in flight: ${paces(localPace.single)}` +
  (GROUPED
    ? `; ${shape} (the stream consumer's): ${paces(localPace.grouped)}, DynamoDB Local using ` +
      `${localPace.groupedCores.map((cores) => fmt(cores, 2)).join(' / ')} cores`
    : ' (the stream consumer sends so)');
const floors = runs.map(
  ({ floor, paceBefore, paceAfter }) =>
    `The burst's floor: its items live in ${fmt(floor.homes, 0)} term homes, so indexing them takes at ` +
    `least ${fmt(floor.writes, 0)} conditional writes (one a home, one an item's write-ahead), ${shape}: ` +
    `${fmt(floor.writes / (paceBefore || 1))} s at the pace before the burst, ${fmt(floor.writes / (paceAfter || 1))} s at the pace after it.`,
);
const spent = [...runs, ...settles].flatMap((r) =>
  r.window
    ? [
        {
          name: r.name,
          paceAfter: r.paceAfter,
          ...timeSpent(batches, r.window),
          coresAfterLast201: cpu.coresUsed(r.window.last201, r.window.to),
        },
      ]
    : [],
);
const whereTimeGoes = table(
  [
    'run (first create → done)',
    'stream batches (items each)',
    'passes',
    'writes (a second while writing)',
    'requests an item',
    'retries',
    'slow passes / splits',
    `indexing s: ${STEPS.join(' / ')} / other`,
    'between batches s',
    'after the last 201: indexing / between s',
    'writes after the last 201 (s at the pace after the run)',
    'cores used after the last 201: DynamoDB Local / serverless-offline / consumer / this bench',
  ],
  spent.map((r) => [
    r.name,
    r.batches.join(', '),
    r.passes,
    `${fmt(r.writes, 0)} (${fmt(r.writesPerSecond, 0)})`,
    fmt(r.requestsPerItem),
    r.retries,
    `${r.slowPasses} / ${r.splits}`,
    `${fmt(r.indexing)}: ${Object.values(r.steps)
      .map((seconds) => fmt(seconds))
      .join(' / ')}`,
    fmt(r.between),
    `${fmt(r.afterLast201.indexing)} / ${fmt(r.afterLast201.between)}`,
    `${fmt(r.afterLast201.writes, 0)} (${fmt(r.afterLast201.writes / (r.paceAfter || 1))})`,
    [
      r.coresAfterLast201.dynamodb,
      r.coresAfterLast201.offline,
      r.coresAfterLast201.consumer,
      r.coresAfterLast201.bench,
    ]
      .map((cores) => fmt(cores, 2))
      .join(' / '),
  ]),
);
console.log(`${pace}\n${floors.join('\n')}\n${whereTimeGoes}`);
const text = `${markdown}\n\n${settled}\n\n${pace}.\n${floors.join('\n')}\n\nWhere the time goes (the consumer's metrics):\n\n${whereTimeGoes}`;
writeResult('freshness', text, { runs, settles, localPace, spent });
process.exit(0);
