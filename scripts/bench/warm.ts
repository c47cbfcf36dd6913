// `npm run bench:warm`: the deployed get-item and create-item bundles invoked in-process against DynamoDB Local,
// alternating call by call with the raw SDK calls each one makes.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createIdAllocator } from '../../lib/items/ids.ts';
import { itemKey } from '../../lib/items/keys.ts';
import { toRecord } from '../../lib/items/record.ts';
import { leaseIds } from '../../lib/items/writer.ts';
import {
  envNumber,
  medianRatioInterval,
  ms,
  percentiles,
  raisePriority,
  verdictOf,
  writeResult,
} from './common.ts';
import { getItemEvent, invoke, postEvent, SAMPLE_ITEM, withDeployedService } from './service.ts';

const N = envNumber('BENCH_WARM_N', 2000);
const WARMUP = 50;
const PRIORITY = raisePriority();

await withDeployedService(async (service, deployed) => {
  Object.assign(process.env, service.env);
  const load = async (name: string) => (await import(deployed(name).bundlePath)).handler;
  const [getItem, createItem] = [await load('getItem'), await load('createItem')];
  const { client, tableName: TableName, itemId } = service;
  const getEvent = getItemEvent(itemId);
  const createEvent = (token: string) => postEvent('POST /items', token, SAMPLE_ITEM);
  const reusedTokenEvent = createEvent(service.token('editor'));
  // A new token every request, each verified in full.
  const freshEvents = Array.from({ length: WARMUP + N }, () => createEvent(service.token('editor')));

  const rawGet = () => client.send(new GetCommand({ TableName, Key: itemKey(itemId), ConsistentRead: true }));
  // What create-item sends without an Idempotency-Key: a conditional PutItem, and an ADD on the counter a lease.
  const nextId = createIdAllocator(leaseIds(service));
  const rawCreate = async () => {
    const id = await nextId();
    const now = new Date().toISOString();
    const Item = toRecord({ id, ...SAMPLE_ITEM, createdAt: now, updatedAt: now, version: 1 });
    await client.send(new PutCommand({ TableName, Item, ConditionExpression: 'attribute_not_exists(pk)' }));
  };
  const createWithReusedToken = () => invoke(createItem, reusedTokenEvent, 201);
  let freshTokens = 0;
  const createWithFreshToken = () =>
    invoke(createItem, freshEvents[freshTokens++ % freshEvents.length] ?? reusedTokenEvent, 201);

  const rawCreateCalls = 'raw `PutCommand` (+ `UpdateCommand` on the counter a lease)';
  const [sameToken, newToken] = ['the same token every request', 'a new token every request'];
  const pairs = [
    ['get-item', 'get-item', () => invoke(getItem, getEvent, 200), 'raw `GetCommand` (consistent)', rawGet],
    ['create-item', `create-item, ${sameToken}`, createWithReusedToken, rawCreateCalls, rawCreate],
    ['create-item fresh token', `create-item, ${newToken}`, createWithFreshToken, rawCreateCalls, rawCreate],
  ] as const;
  // One row at a time, as a Lambda instance runs one function; within a row the two sides alternate.
  const rows: string[] = [];
  const data: Record<string, unknown> = {};
  for (const [key, name, handler, raw, rawCall] of pairs) {
    const sides = [handler, rawCall].map((call) => ({ call, times: [] as number[] }));
    for (let round = 0; round < WARMUP + N; round++)
      for (const side of round % 2 ? [...sides].reverse() : sides) {
        const begin = performance.now();
        await side.call();
        if (round >= WARMUP) side.times.push(performance.now() - begin);
      }
    const [handlerTimes = [], rawTimes = []] = sides.map((side) => side.times);
    const [h, r] = [percentiles(handlerTimes), percentiles(rawTimes)];
    const overhead = (h.p50 / r.p50 - 1) * 100;
    // 95 % bootstrap interval over the iterations (a handler call and its raw calls, side by side).
    const interval = medianRatioInterval(handlerTimes, rawTimes).map((ratio) => (ratio - 1) * 100);
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
  writeResult('warm', markdown, data);
});
process.exit(0);
