import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { countRequests } from '../../lib/dynamodb/client.ts';
import { isCancelled } from '../../lib/dynamodb/conditions.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { docKey } from '../../lib/search/format/keys.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { expected, intercepting, snapshot, type Table } from '../support/index-state.ts';
import { copyOf, freshTable } from '../support/stack.ts';

// The indexer's `writesPerTransaction` (lib/dynamodb/write-groups.ts): doc records and term homes written many a
// transaction, as the local stack's stream consumer does, instead of one a request, as on AWS.

const tables: Table[] = [];
const fresh = async (make: () => Promise<Table>) => {
  const table = await make();
  tables.push(table);
  return table;
};
afterEach(async () => {
  for (const table of tables.splice(0))
    await table.client.send(new DeleteTableCommand({ TableName: table.tableName }));
});

const WORDS = [
  'boot',
  'booting',
  'trail',
  'trailing',
  'camp',
  'camping',
  'rain',
  'lamp',
  'rope',
  'tent',
  'stove',
];
/** Item `i`: a few words of WORDS and one of its own, so a batch has shared homes and homes of one item. */
const itemText = (i: number) => ({
  name: `${WORDS[i % WORDS.length]} w${i}`,
  description: Array.from({ length: 3 + (i % 4) }, (_, j) => WORDS[(i + j * 5) % WORDS.length]).join(' '),
  tags: [],
  attributes: {},
});

/** A table with `count` items created (not indexed), and them. */
async function withItems(count: number) {
  const table = await fresh(() => freshTable());
  const items = createItemRepository(table);
  const created: Item[] = [];
  for (let i = 0; i < count; i++) created.push(await items.create(itemText(i)));
  return { table, created };
}

/** The table's TransactWriteItems as they are sent, by the kind of record their first action writes. */
function watchingTransactions(
  table: Table,
  before: (pk: string, input: TransactWriteCommand['input']) => Promise<void>,
) {
  const seen = { sent: [] as string[], cancelled: [] as string[] };
  const client = intercepting(table.client, async (command, send) => {
    if (!(command instanceof TransactWriteCommand)) return send(command);
    const first = command.input.TransactItems?.[0];
    const pk = String((first?.Put?.Item ?? first?.Update?.Key)?.pk);
    seen.sent.push(pk);
    await before(pk, command.input);
    return send(command).catch((error: unknown) => {
      if (isCancelled(error)) seen.cancelled.push(pk);
      throw error;
    });
  });
  return { client, seen };
}

describe('writes in transactions (writesPerTransaction)', { timeout: 120_000 }, () => {
  it('builds the index a write a request builds, in a fraction of the requests', async () => {
    const { table: one, created } = await withItems(60);
    const many = await fresh(() => copyOf(one));
    const ids = created.map((item) => item.id);
    const requests = [countRequests(one.client), countRequests(many.client)];
    await createIndexer({ ...one, items: createItemRepository(one) }).reindexItems(ids);
    await createIndexer({
      ...many,
      items: createItemRepository(many),
      writesPerTransaction: 50,
    }).reindexItems(ids);
    const built = await snapshot(one);
    expect(built).toMatchObject(expected(created));
    expect(await snapshot(many)).toStrictEqual(built);
    const [alone, grouped] = requests.map((counts) => counts?.requests ?? 0) as [number, number];
    // 60 write-aheads and the homes of 60 items' terms, one a request, against a few transactions of 50.
    expect(alone).toBeGreaterThan(60 + WORDS.length + 60);
    expect(grouped).toBeLessThan(alone / 5);
  });

  it("writes a group's homes one by one when another writer moved one of them, and loses none", async () => {
    const { table, created } = await withItems(30);
    const items = createItemRepository(table);
    const ids = created.map((item) => item.id);
    await createIndexer({ ...table, items }).reindexItems(ids.slice(0, 10));
    // The first group of homes finds one of them moved on by another writer (its version, as a write of it does).
    const moved = { home: '' };
    const { client, seen } = watchingTransactions(table, async (pk) => {
      if (!pk.startsWith('T#') || moved.home) return;
      moved.home = pk;
      await table.client.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk, sk: 'K#~' },
          UpdateExpression: 'ADD v :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      );
    });
    await createIndexer({ ...table, client, items, writesPerTransaction: 50 }).reindexItems(ids);
    expect(moved.home).toMatch(/^T#/);
    expect(seen.cancelled).toStrictEqual([moved.home]);
    expect(await snapshot(table)).toMatchObject(expected(created));
  });

  it("takes a group's leases one by one when another writer moved one of its doc records, and indexes that item in a later pass", async () => {
    const { table, created } = await withItems(12);
    const items = createItemRepository(table);
    const ids = created.map((item) => item.id);
    await createIndexer({ ...table, items }).reindexItems(ids);
    const changed = await Promise.all(
      created.map((item) =>
        items.update(item.id, () => ({ ...itemText(item.id + 7), name: `changed ${item.id}` })),
      ),
    );
    const moved = { pk: '' };
    // Which doc records hold their write-ahead when the pass's first postings go out: all but the moved one's.
    const aheadOfPostings: string[] = [];
    const { client, seen } = watchingTransactions(table, async (pk) => {
      if (pk.startsWith('T#') && moved.pk && aheadOfPostings.length === 0)
        for (const id of ids) {
          const doc = await table.client.send(
            new GetCommand({ TableName: table.tableName, Key: docKey(id) }),
          );
          if ((doc.Item?.pending as unknown[] | undefined)?.length)
            aheadOfPostings.push(String(doc.Item?.pk));
        }
      if (!pk.startsWith('D#') || moved.pk) return;
      moved.pk = pk;
      await table.client.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk, sk: docKey(0).sk },
          UpdateExpression: 'ADD rev :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      );
    });
    const indexer = createIndexer({ ...table, client, items, writesPerTransaction: 50 });
    const outcomes = await indexer.reindexItems(ids);
    expect(moved.pk).toMatch(/^D#/);
    expect(seen.cancelled[0]).toBe(moved.pk);
    expect(aheadOfPostings.toSorted()).toStrictEqual(
      ids
        .map((id) => docKey(id).pk)
        .filter((pk) => pk !== moved.pk)
        .toSorted(),
    );
    expect(outcomes).toStrictEqual(new Map(ids.map((id) => [id, 'indexed'])));
    expect(await snapshot(table)).toMatchObject(expected(changed));
  });
});
