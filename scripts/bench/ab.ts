// `npm run bench:ab -- <other checkout>`: this tree against another checkout (with its own node_modules), side by
// side in one process against one DynamoDB Local, the variants alternating block by block so that drift on this
// shared machine hits both alike.
//   - By default, get-item and create-item warm: both trees' bundles (each built with its own serverless.yml's
//     options), blocks of 100 calls; wall time per call and this process's CPU per call (the service's own work and
//     the SDK's; DynamoDB Local runs in its own process). Then the edge alone: each tree's middleware chain around
//     a handler that answers at once.
//   - With `--items` (`npm run bench:items-layout -- <other checkout>`): the items repository of both trees, and this
//     tree's on a table its migration has not marked yet (its reads also look at the keys before the shards), each
//     on a table of its own holding BENCH_ITEMS items: create p50, list page p50 (limit 100, consistent, after a
//     random id) and read units per page, BENCH_ROUNDS rounds of blocks of 50 of each.
import { execSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { cpuUsage } from 'node:process';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lib/dynamodb/client.ts';
import { LAYOUT_KEY } from '../../lib/items/keys.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { createIssuer, mintToken } from '../local/issuer.ts';
import { createMeter, meterClient, metered } from './capacity.ts';
import {
  alternating,
  buildBundle,
  envNumber,
  mean,
  median,
  ms,
  quantile,
  ROOT,
  timed,
  writeResult,
} from './common.ts';
import { getItemEvent, lambdaContext, postEvent, SAMPLE_ITEM, withLocalService } from './service.ts';

const other = resolve(process.argv.filter((arg) => arg !== '--items')[2] ?? '');
const EDGE_CALLS = 20_000;
const EDGE_ROUNDS = 5;
const started = Date.now();
let commit = other;
try {
  commit = execSync('git rev-parse --short HEAD', { cwd: other, encoding: 'utf8' }).trim();
} catch {
  // Not a git checkout: named by its path.
}
type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
const context = lambdaContext('items-bench');
const call = async (handler: Handler, event: unknown, label: string) => {
  const result = await handler(event, context);
  if (result.statusCode >= 300) throw new Error(`${label} answered ${result.statusCode}`);
};

if (process.argv.includes('--items')) await itemsSideBySide();
else await handlersSideBySide();

async function handlersSideBySide() {
  const ROUNDS = envNumber('BENCH_AB_ROUNDS', 20);
  const BLOCK = 100;
  await withLocalService(async (service) => {
    Object.assign(process.env, service.env);
    const client = createDocumentClient({ region: 'us-east-1', endpoint: service.endpoint });
    const item = await createItemRepository({ client, tableName: service.tableName }).create(SAMPLE_ITEM);
    const editor = service.token('editor');
    // A fresh event each call, as Lambda gives one: the middlewares change the event they are given.
    const events = {
      'get-item': () => getItemEvent(item.id),
      'create-item': () => postEvent('POST /items', editor, SAMPLE_ITEM),
    };
    const rows: string[] = [];
    const data: Record<string, unknown> = {};
    for (const fn of ['get-item', 'create-item'] as const) {
      const variants = [];
      for (const [label, root] of [
        [`before (${commit})`, other],
        ['after (this tree)', undefined],
      ] as const) {
        const bundle = await buildBundle(
          `functions/${fn}.ts`,
          `/tmp/bench-ab/${label.split(' ')[0]}/${fn}`,
          {},
          root,
        );
        const handler: Handler = (await import(bundle.entryPath)).handler;
        variants.push({ label: `${fn} ${label}`, handler, wall: [] as number[], cpu: [] as number[] });
      }
      for (const v of variants) for (let i = 0; i < 50; i++) await call(v.handler, events[fn](), v.label);
      await alternating(ROUNDS, variants, async (v) => {
        const before = cpuUsage();
        for (let i = 0; i < BLOCK; i++)
          v.wall.push(await timed(() => call(v.handler, events[fn](), v.label)));
        const used = cpuUsage(before);
        v.cpu.push((used.user + used.system) / 1000 / BLOCK);
      });
      for (const v of variants) {
        const figures = { wallP50: median(v.wall), cpuPerCall: median(v.cpu) };
        data[v.label] = figures;
        rows.push(`| ${v.label} | ${ms(figures.wallP50, 3)} | ${ms(figures.cpuPerCall, 3)} |`);
      }
    }
    client.destroy();
    const edge = await edgeAlone();
    const markdown = `Before: ${commit}; ${ROUNDS} rounds of blocks of ${BLOCK} calls, alternating; ms.

| handler | wall p50 | CPU per call |
|---|---|---|
${rows.join('\n')}

The edge alone, ${EDGE_CALLS.toLocaleString('en')} calls a row, ${EDGE_ROUNDS} rounds alternating; µs per call, the median round (the fastest in brackets).

| chain | before | after |
|---|---|---|
${edge.rows.join('\n')}`;
    writeResult('ab', markdown, { ...data, edge: edge.data }, started);
  });
}

/** Both trees' chains (each its own lib/http/route.ts) around a handler that answers at once: what the edge costs. */
async function edgeAlone() {
  const issuer = createIssuer();
  const options = { userPoolId: issuer.meta.userPoolId, clientId: issuer.meta.clientId, jwks: issuer.jwks };
  const token = mintToken(issuer, { groups: ['editor'], expiresIn: 7200 });
  const stamp = '2026-01-01T00:00:00.000Z';
  const item = { id: 1, ...SAMPLE_ITEM, createdAt: stamp, updatedAt: stamp, version: 1 };
  const edgeOf = async (root: string) => {
    const { httpRoute } = await import(join(root, 'lib/http/route.ts'));
    const { createTokenVerifier } = await import(join(root, 'lib/auth/verifier.ts'));
    const schemas = await import(join(root, 'lib/items/schema.ts'));
    const verifier = createTokenVerifier(options);
    // Each tree's middy types its chain its own way.
    const instant = (operation: string, inputs: object): Handler =>
      httpRoute(operation, { verifier, inputs, output: schemas.ItemSchema }).handler(async () => ({
        statusCode: 200,
        body: item,
      }));
    return [
      instant('getItem', { path: schemas.ItemPathSchema }),
      instant('createItem', { body: schemas.ItemWriteSchema }),
    ];
  };
  const [before, after] = [await edgeOf(other), await edgeOf(ROOT)];
  const chains = [
    { name: 'get-item', before: before?.[0], after: after?.[0], event: () => getItemEvent(1) },
    {
      name: 'create-item',
      before: before?.[1],
      after: after?.[1],
      event: () => postEvent('POST /items', token, SAMPLE_ITEM),
    },
  ];
  const rows: string[] = [];
  const data: Record<string, { before: number[]; after: number[] }> = {};
  for (const chain of chains) {
    const perCall = async (handler: Handler | undefined) => {
      if (!handler) throw new Error(`no ${chain.name} chain`);
      const begin = performance.now();
      for (let i = 0; i < EDGE_CALLS; i++) await call(handler, chain.event(), chain.name);
      return ((performance.now() - begin) * 1000) / EDGE_CALLS;
    };
    const rounds = { before: [] as number[], after: [] as number[] };
    // Round 0 warms both up and is not counted.
    await alternating(EDGE_ROUNDS + 1, ['before', 'after'] as const, async (side, round) => {
      const micros = await perCall(chain[side]);
      if (round > 0) rounds[side].push(micros);
    });
    data[chain.name] = rounds;
    const cell = (values: number[]) => `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)})`;
    rows.push(`| ${chain.name} | ${cell(rounds.before)} | ${cell(rounds.after)} |`);
  }
  return { rows, data };
}

async function itemsSideBySide() {
  const ITEMS = envNumber('BENCH_ITEMS', 3000);
  const ROUNDS = envNumber('BENCH_ROUNDS', 10);
  const BLOCK = 50;
  const fields = {
    name: 'Trail Boot',
    description: 'Waterproof hiking boot',
    tags: ['outdoor'],
    attributes: { a: 1 },
  };
  const { createItemRepository: createOther } = (await import(`${other}/lib/items/repository.ts`)) as {
    createItemRepository: typeof createItemRepository;
  };
  const tables = ['items-before', 'items-after', 'items-migrating'];
  await withLocalService(async (service) => {
    const variant = (label: string, tableName: string, make: typeof createItemRepository) => {
      const client = createDocumentClient({ region: 'us-east-1', endpoint: service.endpoint });
      const meter = createMeter();
      meterClient(client, meter);
      const repository = make({ client, tableName });
      return {
        label,
        client,
        meter,
        repository,
        create: [] as number[],
        list: [] as number[],
        rcu: [] as number[],
      };
    };
    const variants = [
      variant(`before (${commit})`, 'items-before', createOther),
      variant('after (this tree)', 'items-after', createItemRepository),
      variant('after, not yet migrated', 'items-migrating', createItemRepository),
    ];
    await variants[1]?.client.send(new PutCommand({ TableName: 'items-after', Item: { ...LAYOUT_KEY } }));
    for (const v of variants)
      for (let i = 0; i < ITEMS; i += 20)
        await Promise.all(Array.from({ length: 20 }, () => v.repository.create(fields)));
    await alternating(ROUNDS, variants, async (v) => {
      for (let i = 0; i < BLOCK; i++) v.create.push(await timed(() => v.repository.create(fields)));
      for (let i = 0; i < BLOCK; i++) {
        const afterId = Math.floor(Math.random() * (ITEMS - 100));
        const begin = performance.now();
        const { value, tally } = await metered(v.meter, () =>
          v.repository.list({ limit: 100, ...(afterId > 0 ? { afterId } : {}) }),
        );
        v.list.push(performance.now() - begin);
        v.rcu.push(tally.units);
        if (value.items.length !== 100) throw new Error(`${v.label}: a page of ${value.items.length}`);
      }
    });
    const [base] = variants;
    const ratio = (a: number[], b: number[] | undefined) => (b ? (median(a) / median(b)).toFixed(2) : '');
    console.log(`| variant | create p50 (ms) | × | list page p50 (ms) | × | list p90 (ms) | RCU per page |`);
    console.log('|---|---|---|---|---|---|---|');
    for (const v of variants)
      console.log(
        `| ${v.label} | ${median(v.create).toFixed(2)} | ${ratio(v.create, base?.create)} | ${median(v.list).toFixed(2)} | ${ratio(v.list, base?.list)} | ${quantile(v.list, 0.9).toFixed(2)} | ${mean(v.rcu).toFixed(1)} |`,
      );
    console.log(
      `\n${ITEMS} items a table, ${ROUNDS} rounds of ${BLOCK} creates and ${BLOCK} list pages per variant.`,
    );
  }, tables);
}
