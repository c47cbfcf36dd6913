// `npm run bench:http`: requests per second and latency through serverless-offline (the local stack of
// `npm start`, on free ports) with autocannon. A local figure: not representative of Lambda behind API Gateway.
import autocannon from 'autocannon';
import { median, startBenchStack, table, writeResult } from './common.ts';
import { syntheticItem } from './synthetic.ts';

const DURATION = Number(process.env.BENCH_HTTP_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 8);
const SEED = 50;
const started = Date.now();

const stack = await startBenchStack();
try {
  const json = { 'content-type': 'application/json' };
  for (let id = 1; id <= SEED; id++) {
    const { name, description, tags, attributes } = syntheticItem(id, '');
    const response = await fetch(`${stack.baseUrl}/items`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${stack.editor}` },
      body: JSON.stringify({ name, description, tags, attributes }),
    });
    if (response.status !== 201)
      throw new Error(`seeding answered ${response.status}: ${await response.text()}`);
  }
  const retrieve = {
    url: `${stack.baseUrl}/retrieve`,
    method: 'POST' as const,
    headers: { ...json, authorization: `Bearer ${stack.reader}` },
    body: JSON.stringify({ query: syntheticItem(SEED, '').name, topK: 5 }),
  };
  // Wait until the stream consumer has indexed the seed.
  for (let tries = 0; ; tries++) {
    const body = (await (await fetch(retrieve.url, retrieve)).json()) as {
      results?: { item: { id: number } }[];
    };
    if (body.results?.some((result) => result.item.id === SEED)) break;
    if (tries > 150) throw new Error('the seed items were not indexed within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const routes = [
    { name: 'GET /items/{item_id}', options: { url: `${stack.baseUrl}/items/1` } },
    { name: 'POST /retrieve (reader token, top 5)', options: retrieve },
  ];
  // Warm both routes (serverless-offline starts a worker per function on first use).
  for (const route of routes) await autocannon({ ...route.options, connections: 2, duration: 2 });
  const runs = new Map(routes.map((route) => [route.name, [] as Awaited<ReturnType<typeof autocannon>>[]]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const route of round % 2 === 0 ? routes : [...routes].reverse()) {
      const result = await autocannon({ ...route.options, connections: CONNECTIONS, duration: DURATION });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${route.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      runs.get(route.name)?.push(result);
    }
  }
  const rows = [...runs].map(([name, list]) => [
    name,
    median(list.map((r) => r.requests.average)).toFixed(0),
    median(list.map((r) => r.latency.p50)).toFixed(0),
    median(list.map((r) => r.latency.p99)).toFixed(0),
    list.reduce((sum, r) => sum + r.requests.total, 0).toLocaleString('en'),
  ]);
  const markdown = `${SEED} seeded items; autocannon, ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} runs per route, alternating; medians over the runs.

${table(['route', 'req/s', 'latency p50 (ms)', 'latency p99 (ms)', 'requests (all runs)'], rows)}`;
  writeResult({ part: 'http', markdown, data: rows, seconds: (Date.now() - started) / 1000 });
} finally {
  await stack.stop();
}
process.exit(0);
