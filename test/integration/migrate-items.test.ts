import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BatchWriteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { COUNTER_KEY, itemIdOf, itemKey, LAYOUT_KEY, LEGACY_ITEM_PK } from '../../lib/items/keys.ts';
import { migrateItems } from '../../lib/items/migrate.ts';
import { fromRecord, toRecord } from '../../lib/items/record.ts';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { scanAll, type Table } from '../support/index-state.ts';
import { FIXTURE } from '../support/legacy-index.ts';
import { freshTable, stack } from '../support/stack.ts';

// The items and the counter of a table written by the code before issue #21 (the layout-1 index fixture's table:
// 40 items created, 5 deleted, some edited; pk ITEM, counter COUNTER/ITEM at 40), exactly as that code wrote them.
const OLD = FIXTURE.filter(
  (r) => r.pk === LEGACY_ITEM_PK || (r.pk === COUNTER_KEY.pk && r.sk === COUNTER_KEY.sk),
);
const OLD_ITEMS = OLD.filter((r) => r.pk === LEGACY_ITEM_PK).map(fromRecord);

async function loadOldTable(table: Table) {
  for (let i = 0; i < OLD.length; i += 25)
    await table.client.send(
      new BatchWriteCommand({
        RequestItems: { [table.tableName]: OLD.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
}

/** Every item the list pages give, following them to the end. */
async function listAll(repo: ItemRepository, limit: number): Promise<Item[]> {
  const all: Item[] = [];
  for (let afterId: number | undefined, more = true; more; ) {
    const page = await repo.list({ limit, afterId });
    all.push(...page.items);
    more = page.hasMore;
    afterId = page.items.at(-1)?.id;
  }
  return all;
}

const byId = (items: Iterable<Item>) => [...items].sort((a, b) => a.id - b.id);

/** A writer's change while the migration runs: a replace of an item, a delete, or a create. */
const change = fc.oneof(
  fc.record({
    kind: fc.constant('update' as const),
    pick: fc.nat(),
    name: fc.string({ minLength: 1, maxLength: 8 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('create' as const), name: fc.string({ minLength: 1, maxLength: 8 }) }),
);

class Interrupted extends Error {}

describe('npm run migrate-items on a table written by the code before issue #21', {
  timeout: 180_000,
}, () => {
  test.prop(
    [
      fc.array(fc.integer({ min: 0, max: OLD_ITEMS.length }), { minLength: 1, maxLength: 3 }),
      fc.array(change, { maxLength: 12 }),
      fc.integer({ min: 1, max: 40 }),
    ],
    { numRuns: 6 },
  )(
    'loses and duplicates nothing when interrupted at any move and resumed, while writers change items and readers read',
    async (stops, changes, limit) => {
      const table = await freshTable();
      await loadOldTable(table);
      const repo = createItemRepository({ ...table, layoutRecheckMs: 0 });
      const model = new Map(OLD_ITEMS.map((item) => [item.id, item]));
      const live = () => [...model.keys()];
      const apply = async (c: (typeof changes)[number]) => {
        if (c.kind === 'create') {
          const made = await repo.create({
            name: c.name.trim() || 'x',
            description: '',
            tags: [],
            attributes: {},
          });
          expect(made.id).toBeGreaterThan(40);
          model.set(made.id, made);
          return;
        }
        const id = live()[c.pick % Math.max(1, model.size)];
        if (id === undefined) return;
        if (c.kind === 'delete') {
          model.delete(id);
          await repo.delete(id);
        } else {
          const next = await repo.update(id, (current) => ({ ...current, name: c.name.trim() || 'x' }));
          model.set(id, next);
        }
      };
      const check = async () => {
        for (const item of model.values()) await expect(repo.get(item.id)).resolves.toStrictEqual(item);
        expect(await listAll(repo, limit)).toStrictEqual(byId(model.values()));
      };

      // Runs that stop after a number of moves each, the writers' changes spread among them, then a run to the end.
      const perRun = Math.ceil(changes.length / (stops.length + 1));
      for (const [run, stopAfter] of stops.entries()) {
        let moves = 0;
        const migrating = migrateItems({
          ...table,
          pageSize: 7,
          concurrency: 2,
          beforeMove: () => {
            if (moves++ >= stopAfter) throw new Interrupted();
          },
        }).catch((error: unknown) => {
          if (!(error instanceof Interrupted)) throw error;
        });
        for (const c of changes.slice(run * perRun, (run + 1) * perRun)) await apply(c);
        await migrating;
        await check();
      }
      const resumed = migrateItems({ ...table, pageSize: 7 });
      for (const c of changes.slice(stops.length * perRun)) await apply(c);
      await resumed;
      await check();

      // Every item exactly once, at its shard's key, as the model has it; the old partition empty; the marker written.
      const records = await scanAll(table);
      const itemRecords = records.filter(
        (r) => itemIdOf({ pk: String(r.pk), sk: String(r.sk) }) !== undefined,
      );
      expect(itemRecords.filter((r) => r.pk === LEGACY_ITEM_PK)).toStrictEqual([]);
      expect(byId(itemRecords.map(fromRecord))).toStrictEqual(byId(model.values()));
      for (const item of model.values())
        expect(
          (
            await table.client.send(
              new GetCommand({ TableName: table.tableName, Key: itemKey(item.id), ConsistentRead: true }),
            )
          ).Item,
        ).toStrictEqual(toRecord(item));
      expect(records.some((r) => r.pk === LAYOUT_KEY.pk && r.sk === LAYOUT_KEY.sk)).toBe(true);
      await expect(migrateItems(table)).resolves.toStrictEqual({ moved: 0, skipped: 0, left: 0 });
    },
  );

  test.prop([fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 4 })], { numRuns: 4 })(
    'lets reads find every item, and list pages give each once, while items move',
    async (limit, concurrency) => {
      const table = await freshTable();
      await loadOldTable(table);
      const repo = createItemRepository({ ...table, layoutRecheckMs: 0 });
      const expected = byId(OLD_ITEMS);
      let done = false;
      const migrating = migrateItems({ ...table, pageSize: 5, concurrency }).finally(() => {
        done = true;
      });
      let rounds = 0;
      while (!done || rounds === 0) {
        rounds++;
        const [got, listed] = await Promise.all([
          Promise.all(expected.map((item) => repo.get(item.id))),
          listAll(repo, limit),
        ]);
        expect(got).toStrictEqual(expected);
        expect(listed).toStrictEqual(expected);
      }
      await migrating;
      expect(await listAll(repo, limit)).toStrictEqual(expected);
    },
  );

  it('npm run migrate-items prints its progress, moves every item, and finds nothing to do a second time', async () => {
    const table = await freshTable();
    await loadOldTable(table);
    const first = await migrateCommand(table, '--page-size', '10');
    expect(first.code).toBe(0);
    expect(first.stdout.trim().split('\n')).toStrictEqual([
      'migrate-items: 10 moved, 0 moved or deleted by writers, 25 left',
      'migrate-items: 20 moved, 0 moved or deleted by writers, 15 left',
      'migrate-items: 30 moved, 0 moved or deleted by writers, 5 left',
      'migrate-items: 35 moved, 0 moved or deleted by writers, 0 left',
      expect.stringMatching(
        /^migrate-items: done in \d+\.\d s: 35 moved, 0 moved or deleted by writers; every item is on its shard$/,
      ),
    ]);
    expect(await listAll(createItemRepository(table), 100)).toStrictEqual(byId(OLD_ITEMS));
    const again = await migrateCommand(table);
    expect(again.stdout).toMatch(
      /^migrate-items: done in \d+\.\d s: 0 moved, 0 moved or deleted by writers; /,
    );
  });
});

/** `npm run migrate-items` as a user runs it, against this run's DynamoDB Local. */
function migrateCommand(table: Table, ...args: string[]) {
  const child = spawn(process.execPath, ['scripts/migrate-items.ts', ...args], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: {
      ...process.env,
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.resume();
  return new Promise<{ code: number | null; stdout: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout })),
  );
}
