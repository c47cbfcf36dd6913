import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { fc, test } from '@fast-check/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { COUNTER_KEY, ID_BLOCK, ITEM_SHARDS, itemKey } from '../../lib/items/keys.ts';
import { toRecord } from '../../lib/items/record.ts';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item, ItemWrite } from '../../lib/items/schema.ts';
import { freshTable } from '../support/stack.ts';

type Table = Awaited<ReturnType<typeof freshTable>>;
/**
 * Runs of each list-page property: 2 in `npm test`, 12 in `npm run test:soak` (LIST_RUNS). A sparse page reads every
 * shard, so a run of a few hundred ids is thousands of Queries.
 */
const LIST_RUNS = Number(process.env.LIST_RUNS ?? 2);
const fields = (name: string): ItemWrite => ({ name, description: '', tags: [], attributes: {} });
const item = (id: number): Item => ({
  id,
  ...fields(`item ${id}`),
  createdAt: '2026-11-25T00:00:00.000Z',
  updatedAt: '2026-11-25T00:00:00.000Z',
  version: 1,
});

/** Writes items with exactly these ids (gaps and all) and moves the counter past them. */
async function writeItems(table: Table, ids: readonly number[]) {
  for (let i = 0; i < ids.length; i += 25)
    await Promise.all(
      ids
        .slice(i, i + 25)
        .map((id) =>
          table.client.send(new PutCommand({ TableName: table.tableName, Item: toRecord(item(id)) })),
        ),
    );
  const counter = Math.max(0, ...ids);
  await table.client.send(
    new PutCommand({ TableName: table.tableName, Item: { ...COUNTER_KEY, value: counter } }),
  );
}

/** Follows pages from the first to the last, as a client follows the Links; the ids in the order seen. */
async function walk(repo: ItemRepository, limit: number, between?: () => Promise<void>): Promise<number[]> {
  const seen: number[] = [];
  for (let afterId: number | undefined, more = true; more; ) {
    const page = await repo.list({ limit, afterId });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    seen.push(...page.items.map((i) => i.id));
    more = page.hasMore;
    if (more) expect(page.items.length).toBe(limit);
    afterId = page.items.at(-1)?.id;
    await between?.();
  }
  return seen;
}

describe('items over shards (DynamoDB Local)', { timeout: 180_000 }, () => {
  let table: Table;
  beforeAll(async () => {
    table = await freshTable();
  });

  it('stores each item under its block’s shard, and a container’s creates move on from shard to shard', async () => {
    const repo = createItemRepository(table);
    const created = [];
    // Ids 1 to 2 × ID_BLOCK + 1: three blocks, the first and last partly.
    for (let i = 0; i <= 2 * ID_BLOCK; i++) created.push(await repo.create(fields(`n${i}`)));
    const shards = new Set<string>();
    for (const { id } of created) {
      const { Item } = await table.client.send(
        new GetCommand({ TableName: table.tableName, Key: itemKey(id), ConsistentRead: true }),
      );
      expect(Item?.id).toBe(id);
      shards.add(itemKey(id).pk);
    }
    expect(shards.size).toBeGreaterThanOrEqual(3);
    expect(created.map((i) => i.id)).toStrictEqual([...created.map((i) => i.id)].sort((a, b) => a - b));
  });

  test.prop(
    [
      fc.integer({ min: 2, max: 8 }),
      fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 2, maxLength: 8 }),
    ],
    {
      numRuns: 8,
    },
  )(
    'gives unique ids to concurrent creates from many containers (each its own leases)',
    async (_, perContainer) => {
      const containers = perContainer.map(() => createItemRepository({ ...table, maxLease: 7 }));
      const created = (
        await Promise.all(
          containers.map((repo, i) =>
            Promise.all(
              Array.from({ length: perContainer[i] ?? 0 }, (_, k) => repo.create(fields(`c${i}.${k}`))),
            ),
          ),
        )
      ).flat();
      const ids = created.map((i) => i.id);
      expect(new Set(ids).size).toBe(ids.length);
      const reader = createItemRepository(table);
      for (const made of created) await expect(reader.get(made.id)).resolves.toStrictEqual(made);
    },
  );
});

// A run is seconds alone and several times that beside the soak's other loops: the bound grows with the runs.
describe('list pages over shards (DynamoDB Local)', {
  timeout: Math.max(180_000, LIST_RUNS * 30_000),
}, () => {
  // Ids in dense runs, in blocks far apart (more than a cycle of shards), and alone.
  const ids = fc
    .uniqueArray(
      fc.oneof(
        fc.integer({ min: 1, max: 3 * ID_BLOCK }),
        fc.integer({ min: 1, max: 3 * ID_BLOCK * ITEM_SHARDS }),
        fc.constant(ID_BLOCK * ITEM_SHARDS),
        fc.constant(ID_BLOCK - 1),
      ),
      { minLength: 60, maxLength: 400, size: 'medium' },
    )
    .map((list) => list.sort((a, b) => a - b));

  test.prop([ids, fc.integer({ min: 7, max: 100 })], { numRuns: LIST_RUNS })(
    'visits every item exactly once, in id order, whatever the gaps between ids',
    async (list, limit) => {
      const t = await freshTable();
      await writeItems(t, list);
      expect(await walk(createItemRepository(t), limit)).toStrictEqual(list);
    },
  );

  test.prop([fc.integer({ min: 4, max: 30 }), fc.infiniteStream(fc.nat(1000))], {
    numRuns: LIST_RUNS,
  })(
    'visits every item that exists throughout exactly once, in id order, while others are created and deleted',
    async (limit, choices) => {
      const t = await freshTable();
      const initial = Array.from({ length: 90 }, (_, i) => 1 + i * 3);
      await writeItems(t, initial);
      const deletable = new Set(initial.filter((_, i) => i % 4 === 0));
      const lasting = initial.filter((id) => !deletable.has(id));
      const everCreated = new Set(initial);
      const containers = [0, 1, 2].map(() => createItemRepository({ ...t, maxLease: 5 }));
      const pick = choices[Symbol.iterator]();
      const churn = async () => {
        await Promise.all(
          containers.map(async (repo) => {
            const n = pick.next().value ?? 0;
            if (n % 2 === 0) everCreated.add((await repo.create(fields(`new ${n}`))).id);
            const victim = [...deletable][n % Math.max(1, deletable.size)];
            if (victim !== undefined && deletable.delete(victim)) await repo.delete(victim);
          }),
        );
      };
      const seen = await walk(createItemRepository(t), limit, churn);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1] ?? 0);
      for (const id of lasting) expect(seen).toContain(id);
      for (const id of seen) expect(everCreated.has(id)).toBe(true);
    },
  );

  it('reads one or two blocks for a full page of dense ids', async () => {
    const t = await freshTable();
    await writeItems(
      t,
      Array.from({ length: 400 }, (_, i) => i + 1),
    );
    let queries = 0;
    const send = t.client.send.bind(t.client);
    const counting = new Proxy(t.client, {
      get: (target, property, receiver) =>
        property === 'send'
          ? (command: Parameters<typeof send>[0]) => {
              if (command instanceof QueryCommand) queries++;
              return send(command);
            }
          : Reflect.get(target, property, receiver),
    });
    const repo = createItemRepository({ client: counting, tableName: t.tableName });
    await repo.list({ limit: 100, afterId: 150 });
    await repo.list({ limit: 50, afterId: 0 });
    expect(queries).toBe(3);
  });
});
