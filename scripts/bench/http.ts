// `npm run bench:http`: requests per second and latency through `npm start`'s stack (serverless-offline, on free
// ports) with autocannon, the routes alternating. A local figure: not representative of Lambda behind API Gateway.
import { createRequire } from 'node:module';
import { writableFields } from '../../lib/items/merge-patch.ts';
import { alternating, median, pause, table, writeResult } from './common.ts';
import { startBenchStack } from './service.ts';
import { syntheticItem } from './synthetic.ts';

/** The part of autocannon's API used here (the package ships no types). */
type Histogram = { average: number; p50: number; p99: number; total: number };
type Result = { requests: Histogram; latency: Histogram; non2xx: number; errors: number };
type Options = { url: string; method?: string; headers?: Record<string, string>; body?: string };
const autocannon: (options: Options & { connections: number; duration: number }) => Promise<Result> =
  createRequire(import.meta.url)('autocannon');

const [SECONDS, ROUNDS, CONNECTIONS, SEED] = [10, 3, 8, 50];
const started = Date.now();
const stack = await startBenchStack();
try {
  for (let id = 1; id <= SEED; id++) {
    const response = await stack.post('/items', stack.editor, writableFields(syntheticItem(id, '')));
    if (response.status !== 201) throw new Error(`seeding answered ${response.status}`);
  }
  const query = { query: syntheticItem(SEED, '').name, topK: 5 };
  // Wait until the stream consumer has indexed the seed.
  for (let tries = 0; ; tries++) {
    const response = await stack.post('/retrieve', stack.reader, query);
    const body = (await response.json()) as { results?: { item: { id: number } }[] };
    if (body.results?.some((result) => result.item.id === SEED)) break;
    if (tries > 150) throw new Error('the seed items were not indexed within 30 s');
    await pause(200);
  }
  const retrieve = {
    url: `${stack.baseUrl}/retrieve`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.reader}` },
    body: JSON.stringify(query),
  };
  const routes = [
    { name: 'GET /items/{item_id}', options: { url: `${stack.baseUrl}/items/1` }, runs: [] as Result[] },
    { name: 'POST /retrieve (reader token, top 5)', options: retrieve, runs: [] as Result[] },
  ];
  // Warm both routes (serverless-offline starts a worker per function on first use).
  for (const route of routes) await autocannon({ ...route.options, connections: 2, duration: 2 });
  await alternating(ROUNDS, routes, async (route) => {
    const result = await autocannon({ ...route.options, connections: CONNECTIONS, duration: SECONDS });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${route.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    route.runs.push(result);
  });
  const rows = routes.map(({ name, runs }) => [
    name,
    median(runs.map((r) => r.requests.average)).toFixed(0),
    median(runs.map((r) => r.latency.p50)).toFixed(0),
    median(runs.map((r) => r.latency.p99)).toFixed(0),
    runs.reduce((sum, r) => sum + r.requests.total, 0).toLocaleString('en'),
  ]);
  const markdown = `${SEED} seeded items; autocannon, ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} runs per route, alternating; medians over the runs.

${table(['route', 'req/s', 'latency p50 (ms)', 'latency p99 (ms)', 'requests (all runs)'], rows)}`;
  writeResult('http', markdown, rows, started);
} finally {
  await stack.stop();
}
process.exit(0);
