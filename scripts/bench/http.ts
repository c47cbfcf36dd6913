// `npm run bench:http`: requests per second and latency through serverless-offline (the local stack of
// `npm start`, on free ports) with autocannon. A local figure: not representative of Lambda behind API Gateway.
import autocannon from 'autocannon';
import { createIssuer, mintToken } from '../local/issuer.ts';
import { freePort } from '../local/ports.ts';
import { startStack } from '../local/stack.ts';
import { median, ms, writeResult } from './common.ts';
import { syntheticItem } from './synthetic.ts';

const DURATION = Number(process.env.BENCH_HTTP_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 8);
const SEED = 50;
const started = Date.now();

const issuer = createIssuer();
const stack = await startStack({
  issuer,
  cursorKey: 'bench-cursor-key-0123456789abcdef0123456789',
  port: await freePort(),
  lambdaPort: await freePort(),
  dynamodbPort: await freePort(),
});
try {
  const editor = mintToken(issuer, { groups: ['editor'], expiresIn: 7200 });
  const reader = mintToken(issuer, { groups: ['reader'], expiresIn: 7200 });
  const json = { 'content-type': 'application/json' };
  for (let id = 1; id <= SEED; id++) {
    const { id: _id, createdAt: _c, updatedAt: _u, version: _v, ...fields } = syntheticItem(id, '');
    const response = await fetch(`${stack.baseUrl}/items`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${editor}` },
      body: JSON.stringify(fields),
    });
    if (response.status !== 201)
      throw new Error(`seeding answered ${response.status}: ${await response.text()}`);
  }
  // Wait until the stream consumer has indexed the seed.
  const query = syntheticItem(SEED, '').name;
  const retrieveBody = JSON.stringify({ query, topK: 5 });
  for (let tries = 0; ; tries++) {
    const response = await fetch(`${stack.baseUrl}/retrieve`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${reader}` },
      body: retrieveBody,
    });
    const body = (await response.json()) as { results?: { item: { id: number } }[] };
    if (body.results?.some((result) => result.item.id === SEED)) break;
    if (tries > 150) throw new Error('the seed items were not indexed within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const routes = [
    { name: 'GET /items/{item_id}', options: { url: `${stack.baseUrl}/items/1` } },
    {
      name: 'POST /retrieve (reader token, top 5)',
      options: {
        url: `${stack.baseUrl}/retrieve`,
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${reader}` },
        body: retrieveBody,
      },
    },
  ];
  // Warm both routes (serverless-offline starts a worker per function on first use).
  for (const route of routes) await autocannon({ ...route.options, connections: 2, duration: 2 });
  const runs = new Map(routes.map((route) => [route.name, [] as Awaited<ReturnType<typeof autocannon>>[]]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const route of round % 2 === 0 ? routes : [...routes].reverse()) {
      const result = await autocannon({ ...route.options, connections: CONNECTIONS, duration: DURATION });
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(`${route.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      }
      runs.get(route.name)?.push(result);
    }
  }
  const rows = routes.map((route) => {
    const list = runs.get(route.name) ?? [];
    return `| ${route.name} | ${median(list.map((r) => r.requests.average)).toFixed(0)} | ${ms(median(list.map((r) => r.latency.p50)), 0)} | ${ms(median(list.map((r) => r.latency.p99)), 0)} | ${list.reduce((sum, r) => sum + r.requests.total, 0).toLocaleString('en')} |`;
  });
  const markdown = `## HTTP (local, serverless-offline — not representative of Lambda)

\`npm start\`'s stack on free ports (DynamoDB Local, serverless-offline running the esbuild bundles, the stream
consumer), ${SEED} seeded items; autocannon, ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} runs per
route alternating the routes; medians over the runs. serverless-offline adds its own HTTP server, event mapping
and worker-thread hop, and everything shares this 2-core machine with DynamoDB Local: compare these figures with
each other, not with API Gateway + Lambda.

| route | req/s | latency p50 (ms) | latency p99 (ms) | requests (all runs) |
|---|---|---|---|---|
${rows.join('\n')}
`;
  writeResult({
    part: 'http',
    markdown,
    data: Object.fromEntries(
      [...runs].map(([name, list]) => [
        name,
        list.map((r) => ({
          rps: r.requests.average,
          p50: r.latency.p50,
          p99: r.latency.p99,
          total: r.requests.total,
        })),
      ]),
    ),
    seconds: (Date.now() - started) / 1000,
  });
} finally {
  await stack.stop();
}
process.exit(0);
