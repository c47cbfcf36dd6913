// `npm run bench:ab -- <other checkout>`: this tree's get-item and create-item against another's, warm in one
// process (blocks of calls alternating), and each tree's middleware chain alone around an instant handler.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { cpuUsage } from 'node:process';
import { alternating, buildBundle, envNumber, median, ms, ROOT, timed, writeResult } from './common.ts';
import { getItemEvent, type Handler, invoke, postEvent, SAMPLE_ITEM, withLocalService } from './service.ts';

const other = resolve(process.argv[2] ?? '');
const ROUNDS = envNumber('BENCH_AB_ROUNDS', 20);
const [BLOCK, EDGE_CALLS, EDGE_ROUNDS] = [100, 20_000, 5];
const started = Date.now();
const TREES = { before: other, after: ROOT };
// Not a git checkout: named by its path.
const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: other, encoding: 'utf8' });
const commit = git.stdout?.trim() || other;

await withLocalService(async (service) => {
  Object.assign(process.env, service.env);
  const editor = service.token('editor');
  // A fresh event each call, as Lambda gives one: the middlewares change the event they are given.
  const events = {
    'get-item': () => getItemEvent(service.itemId),
    'create-item': () => postEvent('POST /items', editor, SAMPLE_ITEM),
  };
  const [rows, edgeRows] = [[] as string[], [] as string[]];
  const data: Record<string, unknown> = {};
  for (const fn of ['get-item', 'create-item'] as const) {
    const variants = [];
    for (const [label, root] of Object.entries(TREES)) {
      const bundle = await buildBundle(`functions/${fn}.ts`, `/tmp/bench-ab/${label}/${fn}`, root);
      const handler: Handler = (await import(bundle.entryPath)).handler;
      variants.push({ label: `${fn} ${label}`, handler, wall: [] as number[], cpu: [] as number[] });
    }
    for (const v of variants) for (let i = 0; i < 50; i++) await invoke(v.handler, events[fn]());
    await alternating(ROUNDS, variants, async (v) => {
      const before = cpuUsage();
      for (let i = 0; i < BLOCK; i++) v.wall.push(await timed(() => invoke(v.handler, events[fn]())));
      const used = cpuUsage(before);
      v.cpu.push((used.user + used.system) / 1000 / BLOCK);
    });
    for (const v of variants) {
      data[v.label] = { wallP50: median(v.wall), cpuPerCall: median(v.cpu) };
      rows.push(`| ${v.label} | ${ms(median(v.wall), 3)} | ${ms(median(v.cpu), 3)} |`);
    }
  }

  // The edge alone: both trees' chains (each its own lib/http/route.ts) around a handler that answers at once.
  const { userPoolId, clientId } = service.issuer.meta;
  const stamp = '2026-01-01T00:00:00.000Z';
  const item = { id: 1, ...SAMPLE_ITEM, createdAt: stamp, updatedAt: stamp, version: 1 };
  const chains: Record<string, Record<keyof typeof events, Handler>> = {};
  for (const [label, root] of Object.entries(TREES)) {
    const { httpRoute } = await import(join(root, 'lib/http/route.ts'));
    const { createTokenVerifier } = await import(join(root, 'lib/auth/verifier.ts'));
    const schemas = await import(join(root, 'lib/items/schema.ts'));
    const verifier = createTokenVerifier({ userPoolId, clientId, jwks: service.issuer.jwks });
    const instant = (operation: string, inputs: object): Handler =>
      httpRoute(operation, { verifier, inputs, output: schemas.ItemSchema }).handler(async () => ({
        statusCode: 200,
        body: item,
      }));
    chains[label] = {
      'get-item': instant('getItem', { path: schemas.ItemPathSchema }),
      'create-item': instant('createItem', { body: schemas.ItemWriteSchema }),
    };
  }
  const edge: Record<string, { before: number[]; after: number[] }> = {};
  for (const fn of ['get-item', 'create-item'] as const) {
    const rounds = { before: [] as number[], after: [] as number[] };
    // Round 0 warms both up and is not counted.
    await alternating(EDGE_ROUNDS + 1, ['before', 'after'] as const, async (side, round) => {
      const handler = chains[side]?.[fn] as Handler;
      const begin = performance.now();
      for (let call = 0; call < EDGE_CALLS; call++) await invoke(handler, events[fn]());
      if (round > 0) rounds[side].push(((performance.now() - begin) * 1000) / EDGE_CALLS);
    });
    edge[fn] = rounds;
    const cell = (values: number[]) => `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)})`;
    edgeRows.push(`| ${fn} | ${cell(rounds.before)} | ${cell(rounds.after)} |`);
  }
  const markdown = `Before: ${commit}; after: this tree. ${ROUNDS} rounds of blocks of ${BLOCK} calls, alternating; ms.

| handler | wall p50 | CPU per call |
|---|---|---|
${rows.join('\n')}

The edge alone, ${EDGE_CALLS.toLocaleString('en')} calls a row, ${EDGE_ROUNDS} rounds alternating; µs per call, the median round (the fastest in brackets).

| chain | before | after |
|---|---|---|
${edgeRows.join('\n')}`;
  writeResult('ab', markdown, { ...data, edge }, started);
});
