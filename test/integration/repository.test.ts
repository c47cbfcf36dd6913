import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { ItemNotFoundError, VersionConflictError } from '../../lib/items/errors.ts';
import { itemKey } from '../../lib/items/keys.ts';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { ItemWrite } from '../../lib/items/schema.ts';
import { freshTable, sendingPutsTwice } from '../support/stack.ts';

const boot: ItemWrite = {
  name: 'Trail Boot',
  description: 'Waterproof',
  tags: ['outdoor'],
  attributes: { size: 42 },
};
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let repo: ItemRepository;
let table: Awaited<ReturnType<typeof freshTable>>;

beforeEach(async () => {
  table = await freshTable();
  repo = createItemRepository(table);
});

describe('item repository on DynamoDB Local', () => {
  it('creates an item at version 1 with equal timestamps and reads it back', async () => {
    const created = await repo.create(boot);
    expect(created).toStrictEqual({
      id: 1,
      ...boot,
      createdAt: expect.stringMatching(ISO),
      updatedAt: created.createdAt,
      version: 1,
    });
    await expect(repo.get(1)).resolves.toStrictEqual(created);
  });

  it('keeps attribute numbers DynamoDB numbers cannot hold', async () => {
    const created = await repo.create({ ...boot, attributes: { big: 1e308, tiny: 5e-324, neg: -0.1 } });
    expect((await repo.get(created.id)).attributes).toStrictEqual({ big: 1e308, tiny: 5e-324, neg: -0.1 });
  });

  it('throws ItemNotFoundError for an unknown id', async () => {
    await expect(repo.get(99)).rejects.toThrow(ItemNotFoundError);
    await expect(repo.update(99, () => boot)).rejects.toThrow(ItemNotFoundError);
    await expect(repo.delete(99)).rejects.toThrow(ItemNotFoundError);
    await expect(repo.delete(99, { ifMatch: 1 })).rejects.toThrow(ItemNotFoundError);
  });

  it('never reuses an id after a delete', async () => {
    const first = await repo.create(boot);
    const second = await repo.create(boot);
    await repo.delete(second.id);
    await repo.delete(first.id);
    expect((await repo.create(boot)).id).toBe(3);
  });

  it('bumps version and updatedAt on a change, and leaves both on a no-op', async () => {
    const created = await repo.create(boot);
    const same = await repo.update(created.id, () => ({ ...boot, attributes: { size: 42 } }));
    expect(same).toStrictEqual(created);
    const changed = await repo.update(created.id, () => ({ ...boot, name: 'Trail Boot II' }));
    expect(changed).toMatchObject({ name: 'Trail Boot II', version: 2, createdAt: created.createdAt });
    expect(changed.updatedAt >= created.updatedAt).toBe(true);
  });

  it('refuses a write or delete whose If-Match version is stale', async () => {
    const created = await repo.create(boot);
    await repo.update(created.id, () => ({ ...boot, name: 'v2' }), { ifMatch: 1 });
    await expect(repo.update(created.id, () => ({ ...boot, name: 'v3' }), { ifMatch: 1 })).rejects.toThrow(
      VersionConflictError,
    );
    await expect(repo.delete(created.id, { ifMatch: 1 })).rejects.toThrow(VersionConflictError);
    await repo.delete(created.id, { ifMatch: 2 });
    await expect(repo.get(created.id)).rejects.toThrow(ItemNotFoundError);
  });

  it('lists in id order, page by page, telling when more remain', async () => {
    for (let i = 0; i < 5; i++) await repo.create({ ...boot, name: `Item ${i}` });
    const first = await repo.list({ limit: 2 });
    expect(first.items.map((item) => item.id)).toStrictEqual([1, 2]);
    expect(first.hasMore).toBe(true);
    const second = await repo.list({ limit: 2, afterId: 2 });
    expect(second.items.map((item) => item.id)).toStrictEqual([3, 4]);
    const last = await repo.list({ limit: 2, afterId: 4 });
    expect(last).toMatchObject({ items: [{ id: 5 }], hasMore: false });
    expect(await repo.list({ limit: 5 })).toMatchObject({ hasMore: false });
  });

  it('refuses to return a stored record that breaks the schema', async () => {
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...itemKey(7), id: 7, name: '', description: '', tags: [], attributes: '{}', version: 1 },
      }),
    );
    await expect(repo.get(7)).rejects.toThrow();
  });

  it('answers a create or If-Match write whose put landed but was sent again (a retry after a lost reply) with the item', async () => {
    // The repeat's condition fails (the record exists): the write is still the caller's, not a 500.
    const send = table.client.send.bind(table.client);
    const retried = createItemRepository({
      client: sendingPutsTwice(table.client),
      tableName: table.tableName,
    });
    const item = await retried.create(boot);
    expect(await repo.get(item.id)).toStrictEqual(item);
    expect((await repo.list({ limit: 10 })).items).toStrictEqual([item]);
    // The same for a write with If-Match: its repeat finds version 2, its own, and is no conflict.
    const renamed = await retried.update(item.id, () => ({ ...boot, name: 'Renamed' }), { ifMatch: 1 });
    expect(renamed).toMatchObject({ version: 2, name: 'Renamed' });
    expect(await repo.get(item.id)).toStrictEqual(renamed);
    await expect(repo.update(item.id, () => boot, { ifMatch: 1 })).rejects.toThrow(VersionConflictError);
    // A different record under that id is not this write: the failure stands.
    const clashing = new Proxy(table.client, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver);
        return async (command: Parameters<typeof send>[0]) => {
          if (command instanceof PutCommand) {
            const { TableName, Item } = command.input;
            await send(new PutCommand({ TableName, Item: { ...Item, name: 'Someone else' } }));
          }
          return send(command);
        };
      },
    });
    await expect(
      createItemRepository({ client: clashing, tableName: table.tableName }).create(boot),
    ).rejects.toThrow(/conditional/i);
  });

  it('gives 50 parallel creates 50 distinct ids', async () => {
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, i) => repo.create({ ...boot, name: `n${i}` })),
    );
    const ids = new Set(created.map((item) => item.id));
    expect(ids.size).toBe(50);
    expect([...ids].sort((a, b) => a - b)).toStrictEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const listed = await repo.list({ limit: 100 });
    expect(listed.items).toHaveLength(50);
  });

  it('lets exactly one of 20 parallel If-Match writes with the same version succeed', async () => {
    const { id } = await repo.create(boot);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        repo.update(id, () => ({ ...boot, name: `writer ${i}` }), { ifMatch: 1 }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const r of lost) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflictError);
    const stored = await repo.get(id);
    expect(stored.version).toBe(2);
    expect(stored.name).toBe((won[0] as PromiseFulfilledResult<{ name: string }>).value.name);
  });

  it('loses no update among parallel writers without If-Match', async () => {
    const { id } = await repo.create({ ...boot, attributes: {} });
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        repo.update(id, (current) => ({ ...boot, attributes: { ...current.attributes, [`k${i}`]: i } })),
      ),
    );
    const stored = await repo.get(id);
    expect(Object.keys(stored.attributes)).toHaveLength(12);
    expect(stored.version).toBe(13);
  });
});
