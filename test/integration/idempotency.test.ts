import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyInProgressError, IdempotencyKeyReusedError } from '../../lib/idempotency/errors.ts';
import { canonicalJson, createIdempotency } from '../../lib/idempotency/store.ts';
import { createItemOperation } from '../../lib/items/create.ts';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import { freshTable, sendingPutsTwice } from '../support/stack.ts';

const alice = { sub: 'alice', username: 'alice', groups: ['editor'] };
const bob = { sub: 'bob', username: 'bob', groups: ['editor'] };
const body = { name: 'Trail Boot', description: '', tags: [], attributes: {} };

let table: Awaited<ReturnType<typeof freshTable>>;
let items: ItemRepository;
let create: ReturnType<typeof createItemOperation>;
const count = async () => (await items.list({ limit: 100 })).items.length;
const request = (key: string, payload: unknown = body, caller = alice) => ({
  caller,
  idempotencyKey: key,
  payload,
});

beforeEach(async () => {
  table = await freshTable();
  items = createItemRepository(table);
  create = createItemOperation({ items, once: createIdempotency(table) });
});

describe('idempotent creates on DynamoDB Local', () => {
  it('replays the first item for a repeat with the same key and body, creating nothing', async () => {
    const first = await create(body, request('k1'));
    const again = await create(
      body,
      request(
        'k1',
        JSON.parse(JSON.stringify({ tags: [], name: 'Trail Boot', attributes: {}, description: '' })),
      ),
    );
    expect(first.replayed).toBe(false);
    expect(again).toStrictEqual({ item: first.item, replayed: true });
    expect(await count()).toBe(1);
  });

  it('refuses the same key with a different body', async () => {
    await create(body, request('k2'));
    await expect(
      create({ ...body, name: 'Other' }, request('k2', { ...body, name: 'Other' })),
    ).rejects.toThrow(IdempotencyKeyReusedError);
    expect(await count()).toBe(1);
  });

  it('scopes keys per caller', async () => {
    const a = await create(body, request('shared'));
    const b = await create(body, request('shared', body, bob));
    expect(a.item).not.toStrictEqual(b.item);
    expect(await count()).toBe(2);
  });

  it('creates once when the same request arrives many times at once; the others replay or get 409', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => create(body, request('burst'))),
    );
    expect(await count()).toBe(1);
    const [item] = (await items.list({ limit: 1 })).items;
    for (const result of results) {
      if (result.status === 'fulfilled') expect(result.value.item).toStrictEqual(item);
      else expect(result.reason).toBeInstanceOf(IdempotencyInProgressError);
    }
    expect((await create(body, request('burst'))).item).toStrictEqual(item);
  });

  it('creates once when its own key record landed but was sent again (a retry after a lost reply)', async () => {
    // The repeat of the key record's put finds the record locked by this very request: it is this request's own.
    const retried = createItemOperation({
      items,
      once: createIdempotency({ client: sendingPutsTwice(table.client), tableName: table.tableName }),
    });
    const first = await retried(body, request('lost-reply'));
    expect(first.replayed).toBe(false);
    expect(await count()).toBe(1);
    expect(await create(body, request('lost-reply'))).toStrictEqual({ item: first.item, replayed: true });
  });

  it('keeps the record of the first request when duplicates are refused while it runs', async () => {
    // Powertools idempotency 2.35's middy middleware deletes the record of a refused duplicate, so a third
    // request runs the operation again. Here refusals never touch the record.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const once = createIdempotency(table);
    const slow = createItemOperation({
      items: { ...items, create: async (fields, options) => gate.then(() => items.create(fields, options)) },
      once,
    });
    const first = slow(body, request('slow'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const duplicates = await Promise.allSettled([
      create(body, request('slow')),
      create(body, request('slow')),
    ]);
    for (const d of duplicates)
      expect(d.status === 'rejected' && d.reason instanceof IdempotencyInProgressError).toBe(true);
    await expect(create(body, request('slow'))).rejects.toThrow(IdempotencyInProgressError);
    release();
    const created = await first;
    expect(await create(body, request('slow'))).toStrictEqual({ item: created.item, replayed: true });
    expect(await count()).toBe(1);
  });

  it('releases the key when the create fails, so a retry creates exactly once', async () => {
    const failing = createItemOperation({
      items: { ...items, create: async () => Promise.reject(new Error('database down')) },
      once: createIdempotency(table),
    });
    await expect(failing(body, request('retry'))).rejects.toThrow('database down');
    expect((await create(body, request('retry'))).replayed).toBe(false);
    expect(await count()).toBe(1);
  });

  it('lets a retry take over a key whose first request stopped without committing', async () => {
    let clock = Date.now();
    const once = createIdempotency({ ...table, now: () => clock, lockSeconds: 30 });
    const stalled = createItemOperation({ items: { ...items, create: () => new Promise(() => {}) }, once });
    void stalled(body, request('stale'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const op = createItemOperation({ items, once });
    await expect(op(body, request('stale'))).rejects.toThrow(IdempotencyInProgressError);
    clock += 31_000;
    expect((await op(body, request('stale'))).replayed).toBe(false);
    expect(await count()).toBe(1);
  });

  it('forgets a key after 24 hours', async () => {
    let clock = Date.now();
    const op = createItemOperation({ items, once: createIdempotency({ ...table, now: () => clock }) });
    const first = await op(body, request('old'));
    clock += 24 * 3600 * 1000 + 2000;
    const second = await op(body, request('old'));
    expect(second.item).not.toStrictEqual(first.item);
    expect(await count()).toBe(2);
  });

  it('hashes bodies canonically', () => {
    expect(canonicalJson({ b: [1, { y: 1, x: 2 }], a: 'x' })).toBe('{"a":"x","b":[1,{"x":2,"y":1}]}');
  });

  it('ignores a record left by another caller with the same key hash only by scope', async () => {
    await table.client.send(
      new PutCommand({ TableName: table.tableName, Item: { pk: 'IDEM#unrelated', sk: 'IDEM' } }),
    );
    expect((await create(body, request('fresh'))).replayed).toBe(false);
  });
});
