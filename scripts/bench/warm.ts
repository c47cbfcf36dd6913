// `npm run bench:warm`: the deployed get-item and create-item bundles invoked in-process against DynamoDB Local,
// interleaved call by call with the raw SDK calls each one makes, through a document client built like the
// service's (lib/dynamodb/client.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createVerifiedTokenCache } from '../../lib/auth/token-cache.ts';
import { createTokenVerifier } from '../../lib/auth/verifier.ts';
import { createIdAllocator } from '../../lib/items/ids.ts';
import { COUNTER_KEY, itemKey } from '../../lib/items/keys.ts';
import {
  alternating,
  bootstrap,
  envNumber,
  median,
  ms,
  quantile,
  raisePriority,
  timed,
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
  const { client, tableName, itemId } = service;
  const getEvent = getItemEvent(itemId);
  const editor = service.token('editor');
  const createEvent = (token: string) => postEvent('POST /items', token, SAMPLE_ITEM);
  const reusedTokenEvent = createEvent(editor);
  // A token per request, as many callers (or one caller's refreshed tokens) would send: each verified in full.
  const freshTokens = (count: number) => Array.from({ length: count }, () => service.token('editor'));
  const freshEvents = freshTokens(2 * (WARMUP + N)).map(createEvent);
  const freshForRaw = freshTokens(WARMUP + N);

  // What get-item sends: one consistent GetItem.
  const rawGet = () =>
    client.send(new GetCommand({ TableName: tableName, Key: itemKey(itemId), ConsistentRead: true }));
  // What create-item sends without an Idempotency-Key: a conditional PutItem, and an ADD on the counter when its block
  // of leased ids is used up (the same allocator as the repository's, leasing from the same counter).
  const nextId = createIdAllocator(async (size) => {
    const { Attributes } = await client.send(
      new UpdateCommand({
        TableName: tableName,
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
    const attributes = JSON.stringify(SAMPLE_ITEM.attributes);
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...itemKey(id), id, ...SAMPLE_ITEM, attributes, createdAt: now, updatedAt: now, version: 1 },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  };

  // The part of create-item's work that is not DynamoDB's: verifying the caller's RS256 token in full
  // (no verified-token cache: every token is new).
  const verifier = createTokenVerifier({
    userPoolId: service.issuer.meta.userPoolId,
    clientId: service.issuer.meta.clientId,
    jwks: service.issuer.jwks,
    cache: createVerifiedTokenCache(0),
  });
  let rawTokenIndex = 0;
  const rawCreateWithToken = async () => {
    await verifier.verify(freshForRaw[rawTokenIndex++ % freshForRaw.length] ?? editor);
    await rawCreate();
  };
  let freshIndex = 0;
  const createWithFreshToken = () =>
    invoke(createItem, freshEvents[freshIndex++ % freshEvents.length] ?? reusedTokenEvent, 201);

  const rawCreateCalls = 'raw `PutCommand` (+ `UpdateCommand` on the counter a lease)';
  const pairs = [
    {
      key: 'get-item',
      name: 'get-item',
      raw: 'raw `GetCommand` (consistent)',
      handler: () => invoke(getItem, getEvent, 200),
      rawCall: rawGet,
    },
    {
      key: 'create-item',
      name: 'create-item, the same token every request',
      raw: rawCreateCalls,
      handler: () => invoke(createItem, reusedTokenEvent, 201),
      rawCall: rawCreate,
    },
    {
      key: 'create-item fresh token',
      name: 'create-item, a new token every request',
      raw: rawCreateCalls,
      handler: createWithFreshToken,
      rawCall: rawCreate,
    },
    {
      key: 'create-item fresh token vs token + raw',
      name: 'create-item, a new token every request',
      raw: 'RS256 verification of a new token (aws-jwt-verify) + the same raw calls',
      handler: createWithFreshToken,
      rawCall: rawCreateWithToken,
    },
    {
      // Not a budget: what the verification alone adds to the raw calls, measured side by side.
      key: 'verification floor',
      name: '(floor) RS256 verification of a new token + the raw calls',
      raw: rawCreateCalls,
      handler: rawCreateWithToken,
      rawCall: rawCreate,
      budget: false,
    },
  ];
  // One row at a time: a Lambda instance runs one function, and each deployed bundle carries its own copy of the
  // SDK, so alternating bundles call by call would measure cache misses Lambda never has. Within a row the handler
  // and its raw calls alternate, and which goes first alternates too.
  const rows: string[] = [];
  const data: Record<string, unknown> = {};
  for (const pair of pairs) {
    const handlerTimes: number[] = [];
    const rawTimes: number[] = [];
    const sides = [
      { call: pair.handler, times: handlerTimes },
      { call: pair.rawCall, times: rawTimes },
    ];
    await alternating(WARMUP + N, sides, async (side, i) => {
      const ms = await timed(side.call);
      if (i >= WARMUP) side.times.push(ms);
    });
    const h = { p50: quantile(handlerTimes, 0.5), p99: quantile(handlerTimes, 0.99) };
    const r = { p50: quantile(rawTimes, 0.5), p99: quantile(rawTimes, 0.99) };
    const overhead = (h.p50 / r.p50 - 1) * 100;
    // 95 % bootstrap interval over the iterations (each a handler call and its raw calls, side by side).
    const iterations = handlerTimes.map((handler, i) => ({ handler, raw: rawTimes[i] ?? Number.NaN }));
    const interval = bootstrap(
      iterations,
      (sample) => (median(sample.map((x) => x.handler)) / median(sample.map((x) => x.raw)) - 1) * 100,
    );
    const verdict = pair.budget === false ? 'n/a' : verdictOf(interval, 10);
    data[pair.key] = {
      handler: h,
      raw: r,
      overheadPercent: overhead,
      overheadInterval: interval,
      verdict,
      handlerTimes,
      rawTimes,
    };
    rows.push(
      `| ${pair.name} | ${ms(h.p50)} | ${ms(h.p99)} | ${pair.raw} | ${ms(r.p50)} | ${ms(r.p99)} | ${overhead.toFixed(1)} % (${interval.map((x) => x.toFixed(1)).join(' to ')}) | ${verdict === 'met' || verdict === 'n/a' ? verdict : `**${verdict}**`} |`,
    );
  }
  const markdown = `${N} invocations each after ${WARMUP} unmeasured, nice ${PRIORITY}; milliseconds; 95 % bootstrap intervals.

| handler | p50 | p99 | raw call | raw p50 | raw p99 | p50 overhead (95 % interval) | budget (≤ 10 %) |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}`;
  writeResult('warm', markdown, data, started);
}).finally(() => rmSync(dir, { recursive: true, force: true }));
process.exit(0);
