import { createRequire } from 'node:module';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createIdempotency } from '../../lib/idempotency/store.ts';
import { createItemOperation } from '../../lib/items/create.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { rebuildIndex } from '../../lib/search/operations/rebuild.ts';
import { createServiceRetriever } from '../../lib/search/read/retrieve.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { crashingClient, later } from '../support/index-state.ts';
import { freshTable } from '../support/stack.ts';

// What each function's role allows (infra/iam.cjs): actions on this table's partition keys (dynamodb:LeadingKeys,
// StringLike), and Query on the dictionary's indexes for the functions that read it.
const { PERMISSIONS } = createRequire(import.meta.url)('../../infra/iam.cjs') as {
  PERMISSIONS: Record<string, { actions: string[]; keys: string[] }[]>;
};

type Call = { action: string; pk: string; index?: string };
type Keyed = { pk?: unknown };

/** The DynamoDB actions (as IAM names them) a command makes, each with the partition key it touches. */
function callsOf(command: unknown): Call[] {
  const pk = (record: Keyed | undefined) => String(record?.pk);
  if (command instanceof GetCommand) return [{ action: 'GetItem', pk: pk(command.input.Key) }];
  if (command instanceof PutCommand) return [{ action: 'PutItem', pk: pk(command.input.Item) }];
  if (command instanceof UpdateCommand) return [{ action: 'UpdateItem', pk: pk(command.input.Key) }];
  if (command instanceof DeleteCommand) return [{ action: 'DeleteItem', pk: pk(command.input.Key) }];
  if (command instanceof QueryCommand) {
    const values = command.input.ExpressionAttributeValues ?? {};
    const index = command.input.IndexName;
    return [
      { action: 'Query', pk: String(values[':pk'] ?? Object.values(values)[0]), ...(index ? { index } : {}) },
    ];
  }
  if (command instanceof BatchGetCommand)
    return Object.values(command.input.RequestItems ?? {}).flatMap((request) =>
      (request.Keys ?? []).map((key) => ({ action: 'BatchGetItem', pk: pk(key) })),
    );
  if (command instanceof BatchWriteCommand)
    return Object.values(command.input.RequestItems ?? {}).flatMap((requests) =>
      requests.map((request) =>
        request.PutRequest
          ? { action: 'PutItem', pk: pk(request.PutRequest.Item) }
          : { action: 'DeleteItem', pk: pk(request.DeleteRequest?.Key) },
      ),
    );
  if (command instanceof TransactWriteCommand)
    return (command.input.TransactItems ?? []).map((action) => {
      if (action.Put) return { action: 'PutItem', pk: pk(action.Put.Item) };
      if (action.Update) return { action: 'UpdateItem', pk: pk(action.Update.Key) };
      if (action.Delete) return { action: 'DeleteItem', pk: pk(action.Delete.Key) };
      return { action: 'ConditionCheckItem', pk: pk(action.ConditionCheck?.Key) };
    });
  return [{ action: `unknown ${(command as object).constructor.name}`, pk: '' }];
}

/** The table as a function sees it, through a client that records every call it sends; the items read through it. */
function recorded(table: { client: DynamoDBDocumentClient; tableName: string }) {
  const calls: Call[] = [];
  const client = {
    send: (command: unknown) => {
      calls.push(...callsOf(command));
      return table.client.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
  const tableName = table.tableName;
  return { calls, client, tableName, items: createItemRepository({ client, tableName }) };
}

const like = (pattern: string, value: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(value);

/** The calls no statement of `fn`'s role allows (the dictionary's indexes: Query, for retrieve and generate). */
function refused(fn: string, calls: Call[]): string[] {
  const statements = PERMISSIONS[fn] ?? [];
  const allowed = ({ action, pk, index }: Call) =>
    index
      ? action === 'Query' && (fn === 'retrieve' || fn === 'generate')
      : statements.some(
          (statement) =>
            statement.actions.includes(`dynamodb:${action}`) && statement.keys.some((key) => like(key, pk)),
        );
  return [
    ...new Set(calls.filter((call) => !allowed(call)).map((call) => `${call.action} ${call.pk}`)),
  ].sort();
}

describe('every DynamoDB call a function makes is one its role allows (infra/iam.cjs)', () => {
  it('indexItems: creates, edits of items in sealed blocks, shrinks, a compaction, deletions, a reindex', async () => {
    const table = await freshTable();
    const items = createItemRepository(table);
    const { calls, ...seen } = recorded(table);
    // Renewing at every write of postings, as a pass that outlasts half its lease does.
    const indexer = createIndexer({ ...seen, blockCapacity: 3, compactAt: 2, renewMs: 0 });
    const words = ['boot', 'booting', 'trail', 'rain', 'lamp', 'rope', 'camp', 'stove'];
    const made = [];
    for (let i = 0; i < 12; i++)
      made.push(
        await items.create({
          name: `${words[i % 8]} ${words[(i * 3) % 8]}`,
          description: Array.from({ length: 6 + (i % 4) }, (_, j) => words[(i + j * j) % 8]).join(' '),
          tags: [],
          attributes: {},
        }),
      );
    await indexer.reindexItems(made.map((item) => item.id));
    // Older items edited (their postings in sealed blocks), some shorter (the shrunk set, then its compaction),
    // some deleted; then `npm run reindex`.
    for (const item of made.slice(0, 4))
      await items.update(item.id, (current) => ({ ...current, description: `${words[item.id % 8]} lamp` }));
    await items.update(made[5]?.id ?? 0, (current) => ({
      ...current,
      description: `${current.description} rope`,
    }));
    await items.delete(made[6]?.id ?? 0);
    await indexer.reindexItems(made.map((item) => item.id));
    expect(calls.some((call) => String(call.pk).startsWith('SHRUNK#') && call.action === 'Query')).toBe(true);
    // A writer that died mid-pass, then one whose clock is past its lease: it reads the dead writer's lease record.
    const ids = made.map((item) => item.id);
    await items.update(ids[1] ?? 0, (current) => ({ ...current, description: 'stove rope' }));
    await createIndexer({ ...table, items, client: crashingClient(table, 4) })
      .reindexItems(ids)
      .catch(() => 'died');
    await later({ ...seen, blockCapacity: 3, compactAt: 2 }).reindexItems(ids);
    for (const action of ['UpdateItem', 'BatchGetItem'])
      expect(calls.some((call) => String(call.pk).startsWith('LEASE#') && call.action === action)).toBe(true);
    // `npm run reindex` runs with an operator's credentials; its batches go through the consumer's indexer.
    await rebuildIndex({ ...table, indexer, pageSize: 5 });
    expect(refused('indexItems', calls)).toStrictEqual([]);
  });

  it('retrieve: a query with prefix and typo alternatives over an index with items in the shrunk set', async () => {
    const table = await freshTable();
    const items = createItemRepository(table);
    const indexer = createIndexer({ ...table, items });
    const made = [];
    for (const name of ['Waterproof hiking boot', 'Rain jacket', 'Camp stove', 'Trail running shoe'])
      made.push(
        await items.create({
          name,
          description: `${name} for the outdoors, light and warm`,
          tags: [],
          attributes: {},
        }),
      );
    await indexer.reindexItems(made.map((item) => item.id));
    await items.update(made[0]?.id ?? 0, (current) => ({ ...current, description: 'boot' }));
    await indexer.reindexItems([made[0]?.id ?? 0]);
    const { calls, ...seen } = recorded(table);
    const retrieve = createServiceRetriever(seen);
    const { results } = await retrieve({
      query: 'waterprof bot',
      topK: 3,
      minScore: 0,
      typos: 1,
      prefix: true,
    });
    expect(results.length).toBeGreaterThan(0);
    expect(refused('retrieve', calls)).toStrictEqual([]);
  });

  it('the item functions: each repository call its handler makes, and a create’s idempotency record', async () => {
    const table = await freshTable();
    const asFunction = async (
      fn: string,
      call: (
        items: ReturnType<typeof createItemRepository>,
        client: DynamoDBDocumentClient,
      ) => Promise<unknown>,
    ) => {
      const { calls, items, client } = recorded(table);
      await call(items, client);
      return refused(fn, calls);
    };
    const fields = { name: 'Boot', description: 'A boot', tags: [], attributes: {} };
    const seed = await createItemRepository(table).create(fields);
    expect(await asFunction('createItem', (items) => items.create(fields))).toStrictEqual([]);
    // With an Idempotency-Key: the key's record taken, the item and the record's result in one transaction, then a
    // repeat answered from the record.
    expect(
      await asFunction('createItem', async (items, client) => {
        const create = createItemOperation({
          items,
          once: createIdempotency({ client, tableName: table.tableName }),
        });
        const request = {
          caller: { sub: 'editor-1', username: 'editor', groups: ['editor'] },
          idempotencyKey: 'key-1',
          payload: JSON.stringify(fields),
        };
        expect((await create(fields, request)).replayed).toBe(false);
        expect((await create(fields, request)).replayed).toBe(true);
      }),
    ).toStrictEqual([]);
    expect(await asFunction('getItem', (items) => items.get(seed.id))).toStrictEqual([]);
    expect(await asFunction('listItems', (items) => items.list({ limit: 10 }))).toStrictEqual([]);
    expect(
      await asFunction('replaceItem', (items) => items.update(seed.id, () => ({ ...fields, name: 'Boots' }))),
    ).toStrictEqual([]);
    expect(
      await asFunction('patchItem', (items) =>
        items.update(seed.id, (current) => ({ ...current, name: 'Boot' })),
      ),
    ).toStrictEqual([]);
    expect(await asFunction('deleteItem', (items) => items.delete(seed.id))).toStrictEqual([]);
  });
});
