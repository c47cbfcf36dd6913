// `npm run bench:warm`: the deployed get-item and create-item bundles invoked in-process against DynamoDB Local,
// interleaved call by call with the raw SDK calls each one makes, through a document client built like the
// service's (lib/dynamodb/client.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createTokenVerifier } from '../../lib/auth/verifier.ts';
import { createDocumentClient } from '../../lib/dynamodb/client.ts';
import { COUNTER_KEY, itemKey } from '../../lib/items/keys.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { mintToken } from '../local/issuer.ts';
import {
  apiEvent,
  lambdaContext,
  ms,
  packageFunctions,
  quantile,
  startLocalService,
  writeResult,
} from './common.ts';

const N = Number(process.env.BENCH_WARM_N ?? 400);
const WARMUP = 50;
const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'bench-warm-'));
type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number }>;

const service = await startLocalService();
try {
  Object.assign(process.env, service.env);
  const deployed = packageFunctions(dir);
  const load = async (name: string): Promise<Handler> => {
    const fn = deployed.find((f) => f.name === name);
    if (!fn) throw new Error(`no function ${name}`);
    return (await import(fn.bundlePath)).handler;
  };
  const getItem = await load('getItem');
  const createItem = await load('createItem');
  const client = createDocumentClient({ region: 'us-east-1', endpoint: service.endpoint });
  const { tableName } = service;
  const items = createItemRepository({ client, tableName });
  const fields = {
    name: 'Trail Boot',
    description: 'Waterproof hiking boot with a grippy sole',
    tags: ['outdoor'],
    attributes: { brand: 'acme' },
  };
  const item = await items.create(fields);
  const getEvent = apiEvent({
    method: 'GET',
    path: `/items/${item.id}`,
    routeKey: 'GET /items/{item_id}',
    pathParameters: { item_id: String(item.id) },
  });
  const editor = mintToken(service.issuer, { groups: ['editor'], expiresIn: 7200 });
  const createEvent = apiEvent({
    method: 'POST',
    path: '/items',
    routeKey: 'POST /items',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${editor}` },
    body: JSON.stringify(fields),
  });
  const context = lambdaContext('items-bench');

  // What get-item sends: one consistent GetItem.
  const rawGet = () =>
    client.send(new GetCommand({ TableName: tableName, Key: itemKey(item.id), ConsistentRead: true }));
  // What create-item sends without an Idempotency-Key: ADD on the counter, then a conditional PutItem.
  const rawCreate = async () => {
    const { Attributes } = await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: COUNTER_KEY,
        UpdateExpression: 'ADD #value :one',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const id = Number(Attributes?.value);
    const now = new Date().toISOString();
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...itemKey(id),
          id,
          ...fields,
          attributes: JSON.stringify(fields.attributes),
          createdAt: now,
          updatedAt: now,
          version: 1,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  };

  // The part of create-item's work that is not DynamoDB's: verifying the caller's RS256 token.
  const verifier = createTokenVerifier({
    userPoolId: service.issuer.meta.userPoolId,
    clientId: service.issuer.meta.clientId,
    jwks: service.issuer.jwks,
  });
  const rawCreateWithToken = async () => {
    await verifier.verify(editor);
    await rawCreate();
  };

  const time = async (fn: () => Promise<unknown>) => {
    const begin = performance.now();
    await fn();
    return performance.now() - begin;
  };
  const pairs = [
    {
      name: 'get-item',
      raw: 'raw `GetCommand` (consistent)',
      handler: async () => {
        const result = await getItem(getEvent, context);
        if (result.statusCode !== 200) throw new Error(`getItem answered ${result.statusCode}`);
      },
      rawCall: rawGet,
    },
    {
      name: 'create-item',
      raw: 'raw `UpdateCommand` (counter) + `PutCommand`',
      handler: async () => {
        const result = await createItem(createEvent, context);
        if (result.statusCode !== 201) throw new Error(`createItem answered ${result.statusCode}`);
      },
      rawCall: rawCreate,
    },
    {
      name: 'create-item',
      raw: 'token verification (aws-jwt-verify, RS256) + the same raw calls',
      handler: async () => {
        const result = await createItem(createEvent, context);
        if (result.statusCode !== 201) throw new Error(`createItem answered ${result.statusCode}`);
      },
      rawCall: rawCreateWithToken,
    },
  ];
  const rows: string[] = [];
  const data: Record<string, unknown> = {};
  for (const pair of pairs) {
    const handlerTimes: number[] = [];
    const rawTimes: number[] = [];
    for (let i = 0; i < WARMUP + N; i++) {
      // Alternate which goes first, so neither always follows the other.
      const [first, second] = i % 2 === 0 ? [pair.handler, pair.rawCall] : [pair.rawCall, pair.handler];
      const a = await time(first);
      const b = await time(second);
      if (i < WARMUP) continue;
      handlerTimes.push(i % 2 === 0 ? a : b);
      rawTimes.push(i % 2 === 0 ? b : a);
    }
    const stat = (values: number[]) => ({ p50: quantile(values, 0.5), p99: quantile(values, 0.99) });
    const h = stat(handlerTimes);
    const r = stat(rawTimes);
    const overhead = (h.p50 / r.p50 - 1) * 100;
    data[data[pair.name] ? `${pair.name} vs token + raw` : pair.name] = {
      handler: h,
      raw: r,
      overheadPercent: overhead,
      handlerTimes,
      rawTimes,
    };
    rows.push(
      `| ${pair.name} | ${ms(h.p50)} | ${ms(h.p99)} | ${pair.raw} | ${ms(r.p50)} | ${ms(r.p99)} | ${overhead.toFixed(1)} % | ${overhead <= 10 ? 'met' : '**not met**'} |`,
    );
  }
  const markdown = `## Warm latency

The deployed bundles imported once into one process, then ${N} invocations each (after ${WARMUP} unmeasured),
interleaved one by one with the raw SDK calls the handler makes, sent through a document client built like the
service's; DynamoDB Local, local-stage telemetry (\`POWERTOOLS_LOG_LEVEL=WARN\`, metrics disabled); create with a
real editor token and no \`Idempotency-Key\`. Milliseconds.

| handler | p50 | p99 | raw call | raw p50 | raw p99 | p50 overhead | budget (≤ 10 %) |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
  writeResult({ part: 'warm', markdown, data, seconds: (Date.now() - started) / 1000 });
  client.destroy();
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
