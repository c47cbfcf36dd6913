// `npm run bench:ab -- <other checkout>`: get-item and create-item warm, this tree's bundles against another
// checkout's (with its own node_modules), in one process against one DynamoDB Local: blocks of 100 calls, the
// variants alternating block by block, so drift on this shared machine hits both alike. Wall time per call, and
// this process's CPU per call (the service's own work and the SDK's; DynamoDB Local runs in its own process).
import { execSync } from 'node:child_process';
import { resolve } from 'node:path';
import { cpuUsage } from 'node:process';
import { createDocumentClient } from '../../lib/dynamodb/client.ts';
import type { InputSchemas } from '../../lib/http/middleware/validate.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { mintToken } from '../local/issuer.ts';
import {
  buildBundle,
  createItemEvent,
  getItemEvent,
  lambdaContext,
  median,
  ms,
  SAMPLE_ITEM,
  startLocalService,
  writeResult,
} from './common.ts';

const other = resolve(process.argv[2] ?? '');
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 20);
const BLOCK = 100;
const EDGE_CALLS = 20_000;
const EDGE_ROUNDS = 5;
const FUNCTIONS = ['get-item', 'create-item'] as const;
type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
const started = Date.now();
const { buildBundle: buildOther } = (await import(`${other}/scripts/bench/common.ts`)) as {
  buildBundle: typeof buildBundle;
};
let commit = other;
try {
  commit = execSync('git rev-parse --short HEAD', { cwd: other, encoding: 'utf8' }).trim();
} catch {
  // Not a git checkout: named by its path.
}

const service = await startLocalService();
try {
  Object.assign(process.env, service.env);
  const variants = [
    { label: `before (${commit})`, build: buildOther },
    { label: 'after (this tree)', build: buildBundle },
  ];
  const handlers = new Map<string, Handler>();
  for (const { label, build } of variants) {
    for (const fn of FUNCTIONS) {
      const bundle = await build(`functions/${fn}.ts`, `/tmp/bench-ab/${label.split(' ')[0]}/${fn}`);
      handlers.set(`${fn} ${label}`, (await import(bundle.entryPath)).handler);
    }
  }
  const items = createItemRepository({
    client: createDocumentClient({ region: 'us-east-1', endpoint: service.endpoint }),
    tableName: service.tableName,
  });
  const fields = SAMPLE_ITEM;
  const item = await items.create(fields);
  const editor = mintToken(service.issuer, { groups: ['editor'], expiresIn: 7200 });
  const events = {
    'get-item': () => getItemEvent(item.id),
    'create-item': () => createItemEvent(editor, fields),
  };
  const context = lambdaContext('items-bench');
  const rows: string[] = [];
  const data: Record<string, { wallP50: number; cpuPerCall: number }> = {};
  for (const fn of FUNCTIONS) {
    const labels = variants.map((v) => `${fn} ${v.label}`);
    const wall = new Map<string, number[]>(labels.map((l) => [l, []]));
    const cpu = new Map<string, number[]>(labels.map((l) => [l, []]));
    const call = async (label: string) => {
      // A fresh event each call, as Lambda gives one: the middlewares change the event they are given.
      const result = await (handlers.get(label) as Handler)(events[fn](), context);
      if (result.statusCode >= 300) throw new Error(`${label} answered ${result.statusCode}`);
    };
    for (const label of labels) for (let i = 0; i < 50; i++) await call(label);
    for (let round = 0; round < ROUNDS; round++) {
      for (const label of round % 2 ? [...labels].reverse() : labels) {
        const before = cpuUsage();
        for (let i = 0; i < BLOCK; i++) {
          const begin = performance.now();
          await call(label);
          wall.get(label)?.push(performance.now() - begin);
        }
        const used = cpuUsage(before);
        cpu.get(label)?.push((used.user + used.system) / 1000 / BLOCK);
      }
    }
    for (const label of labels) {
      const figures = { wallP50: median(wall.get(label) ?? []), cpuPerCall: median(cpu.get(label) ?? []) };
      data[label] = figures;
      rows.push(`| ${label} | ${ms(figures.wallP50, 3)} | ${ms(figures.cpuPerCall, 3)} |`);
    }
  }
  const edge = await edgeAlone(other);
  const markdown = `Before: ${commit}; ${ROUNDS} rounds of blocks of ${BLOCK} calls, alternating; ms.

| handler | wall p50 | CPU per call |
|---|---|---|
${rows.join('\n')}

The edge alone, ${EDGE_CALLS.toLocaleString('en')} calls a row, ${EDGE_ROUNDS} rounds alternating; µs per call, the median round (the fastest in brackets).

| chain | before | after |
|---|---|---|
${edge.rows.join('\n')}`;
  writeResult({
    part: 'ab',
    markdown,
    data: { ...data, edge: edge.data },
    seconds: (Date.now() - started) / 1000,
  });
} finally {
  await service.stop();
}

/** Both trees' chains around an instant handler: what the edge itself costs per request. */
async function edgeAlone(otherRoot: string) {
  const at = (path: string) => import(`${otherRoot}/${path}`);
  const { httpRoute: otherRoute } = await at('lib/http/route.ts');
  const { createTokenVerifier: otherVerifier } = await at('lib/auth/verifier.ts');
  const otherSchemas = await at('lib/items/schema.ts');
  const { httpRoute } = await import('../../lib/http/route.ts');
  const { createTokenVerifier } = await import('../../lib/auth/verifier.ts');
  const schemas = await import('../../lib/items/schema.ts');
  const { createIssuer } = await import('../local/issuer.ts');
  const issuer = createIssuer();
  const options = { userPoolId: issuer.meta.userPoolId, clientId: issuer.meta.clientId, jwks: issuer.jwks };
  const token = mintToken(issuer, { groups: ['editor'], expiresIn: 7200 });
  const stamp = '2026-01-01T00:00:00.000Z';
  const fields = SAMPLE_ITEM;
  const item = { id: 1, ...fields, createdAt: stamp, updatedAt: stamp, version: 1 };
  const verifier = createTokenVerifier(options);
  /** A chain waiting for its handler; each tree's middy types it its own way. */
  type Chain = { handler: (fn: () => Promise<{ statusCode: number; body: unknown }>) => unknown };
  const instant = (chain: unknown) =>
    (chain as Chain).handler(async () => ({ statusCode: 200, body: item })) as unknown as Handler;
  const pair = (
    operation: 'getItem' | 'createItem',
    inputs: { before: object; after: InputSchemas },
    event: () => unknown,
  ) => ({
    name: operation === 'getItem' ? 'get-item' : 'create-item',
    before: instant(
      otherRoute(operation, {
        verifier: otherVerifier(options),
        inputs: inputs.before,
        output: otherSchemas.ItemSchema,
      }),
    ),
    after: instant(httpRoute(operation, { verifier, inputs: inputs.after, output: schemas.ItemSchema })),
    event,
  });
  const chains = [
    pair(
      'getItem',
      { before: { path: otherSchemas.ItemPathSchema }, after: { path: schemas.ItemPathSchema } },
      () => getItemEvent(1),
    ),
    pair(
      'createItem',
      { before: { body: otherSchemas.ItemWriteSchema }, after: { body: schemas.ItemWriteSchema } },
      () => createItemEvent(token, fields),
    ),
  ];
  const context = lambdaContext('items-bench');
  const rows: string[] = [];
  const data: Record<string, { before: number[]; after: number[] }> = {};
  for (const chain of chains) {
    const perCall = async (handler: Handler) => {
      const begin = performance.now();
      for (let i = 0; i < EDGE_CALLS; i++) {
        const result = await handler(chain.event(), context);
        if (result.statusCode !== 200) throw new Error(`${chain.name} answered ${result.statusCode}`);
      }
      return ((performance.now() - begin) * 1000) / EDGE_CALLS;
    };
    const rounds = { before: [] as number[], after: [] as number[] };
    // Round 0 warms both up and is not counted.
    for (let round = 0; round <= EDGE_ROUNDS; round++) {
      for (const side of round % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
        const micros = await perCall(chain[side]);
        if (round > 0) rounds[side].push(micros);
      }
    }
    data[chain.name] = rounds;
    const cell = (values: number[]) => `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)})`;
    rows.push(`| ${chain.name} | ${cell(rounds.before)} | ${cell(rounds.after)} |`);
  }
  return { rows, data };
}
