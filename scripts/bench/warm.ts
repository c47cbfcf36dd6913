// `npm run bench:warm`: the deployed get-item and create-item bundles invoked in-process against DynamoDB Local,
// alternating call by call with the raw SDK calls each one makes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createIdAllocator } from '../../lib/items/ids.ts';
import { COUNTER_KEY, itemKey } from '../../lib/items/keys.ts';
import { toRecord } from '../../lib/items/record.ts';
import {
  alternating,
  bootstrap,
  envNumber,
  median,
  ms,
  quantile,
  raisePriority,
  verdictOf,
  writeResult,
} from './common.ts';
import {
  deployedBundle,
  getItemEvent,
  type Handler,
  invoke,
  packageFunctions,
  postEvent,
  SAMPLE_ITEM,
  withLocalService,
} from './service.ts';

const N = envNumber('BENCH_WARM_N', 2000);
const WARMUP = 50;
const PRIORITY = raisePriority();
const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'bench-warm-'));

await withLocalService(async (service) => {
  Object.assign(process.env, service.env);
  const deployed = packageFunctions(dir);
  const load = async (name: string): Promise<Handler> =>
    (await import(deployedBundle(deployed, name).bundlePath)).handler;
  const [getItem, createItem] = [await load('getItem'), await load('createItem')];
  const { client, tableName: TableName, itemId } = service;
  const getEvent = getItemEvent(itemId);
  const createEvent = (token: string) => postEvent('POST /items', token, SAMPLE_ITEM);
  const reusedTokenEvent = createEvent(service.token('editor'));
  // A new token every request, each verified in full.
  const fresh = (count: number) => Array.from({ length: count }, () => service.token('editor'));
  const freshEvents = fresh(WARMUP + N).map(createEvent);

  const rawGet = () => client.send(new GetCommand({ TableName, Key: itemKey(itemId), ConsistentRead: true }));
  // What create-item sends without an Idempotency-Key: a conditional PutItem, and an ADD on the counter a lease.
  const nextId = createIdAllocator(async (size) => {
    const { Attributes } = await client.send(
      new UpdateCommand({
        TableName,
        Key: COUNTER_KEY,
        UpdateExpression: 'ADD #value :size',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':size': size },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.value);
  });
  const rawCreate = async () => {
    const id = await nextId();
    const now = new Date().toISOString();
    const Item = toRecord({ id, ...SAMPLE_ITEM, createdAt: now, updatedAt: now, version: 1 });
    await client.send(new PutCommand({ TableName, Item, ConditionExpression: 'attribute_not_exists(pk)' }));
  };
  let freshTokens = 0;
  const createWithFreshToken = () =>
    invoke(createItem, freshEvents[freshTokens++ % freshEvents.length] ?? reusedTokenEvent, 201);

  const rawCreateCalls = 'raw `PutCommand` (+ `UpdateCommand` on the counter a lease)';
  const newToken = 'create-item, a new token every request';
  const pairs = [
    ['get-item', 'get-item', () => invoke(getItem, getEvent, 200), 'raw `GetCommand` (consistent)', rawGet],
    [
      'create-item',
      'create-item, the same token every request',
      () => invoke(createItem, reusedTokenEvent, 201),
      rawCreateCalls,
      rawCreate,
    ],
    ['create-item fresh token', newToken, createWithFreshToken, rawCreateCalls, rawCreate],
  ] as const;
  // One row at a time, as a Lambda instance runs one function; within a row the two sides alternate.
  const rows: string[] = [];
  const data: Record<string, unknown> = {};
  for (const [key, name, handler, raw, rawCall] of pairs) {
    const [handlerTimes, rawTimes]: [number[], number[]] = [[], []];
    const sides = [
      { call: handler, times: handlerTimes },
      { call: rawCall, times: rawTimes },
    ];
    await alternating(WARMUP + N, sides, async (side, i) => {
      const begin = performance.now();
      await side.call();
      if (i >= WARMUP) side.times.push(performance.now() - begin);
    });
    const h = { p50: quantile(handlerTimes, 0.5), p99: quantile(handlerTimes, 0.99) };
    const r = { p50: quantile(rawTimes, 0.5), p99: quantile(rawTimes, 0.99) };
    const overhead = (h.p50 / r.p50 - 1) * 100;
    // 95 % bootstrap interval over the iterations (a handler call and its raw calls, side by side).
    const iterations = handlerTimes.map((handler, i) => ({ handler, raw: rawTimes[i] ?? Number.NaN }));
    const interval = bootstrap(
      iterations,
      (sample) => (median(sample.map((x) => x.handler)) / median(sample.map((x) => x.raw)) - 1) * 100,
    );
    const verdict = verdictOf(interval, 10);
    data[key] = { handler: h, raw: r, overheadPercent: overhead, overheadInterval: interval, verdict };
    rows.push(
      `| ${name} | ${ms(h.p50)} | ${ms(h.p99)} | ${raw} | ${ms(r.p50)} | ${ms(r.p99)} | ${overhead.toFixed(1)} % (${interval.map((x) => x.toFixed(1)).join(' to ')}) | ${verdict === 'met' ? verdict : `**${verdict}**`} |`,
    );
  }
  const markdown = `${N} invocations each after ${WARMUP} unmeasured, nice ${PRIORITY}; milliseconds; 95 % bootstrap intervals.

| handler | p50 | p99 | raw call | raw p50 | raw p99 | p50 overhead (95 % interval) | budget (≤ 10 %) |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}`;
  writeResult('warm', markdown, data, started);
}).finally(() => rmSync(dir, { recursive: true, force: true }));
process.exit(0);
