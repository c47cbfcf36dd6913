import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { docKey } from '../../lib/search/format/keys.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { expected, intercepting, snapshot } from '../support/index-state.ts';
import { freshTable } from '../support/stack.ts';

type Table = Awaited<ReturnType<typeof freshTable>>;
let table: Table;
let items: ItemRepository;

beforeEach(async () => {
  table = await freshTable();
  items = createItemRepository(table);
});
afterEach(() => table.client.send(new DeleteTableCommand({ TableName: table.tableName })));

/** Forty items of two words each (eighty homes): a pass of them makes about 125 calls. */
async function forty(): Promise<Item[]> {
  const made: Item[] = [];
  for (let i = 0; i < 40; i++)
    made.push(
      await items.create({ name: `spruce${i} fir${i}`, description: 'larch', tags: [], attributes: {} }),
    );
  return made;
}

/** The doc records of `ids`, read as a writer that plans to take them over reads them (consistently). */
async function docsOf(ids: number[]) {
  const { Responses } = await table.client.send(
    new BatchGetCommand({
      RequestItems: { [table.tableName]: { Keys: ids.map(docKey), ConsistentRead: true } },
    }),
  );
  return Responses?.[table.tableName] ?? [];
}

/** The lease renewals among a writer's calls: transactions of doc-record updates that set `leaseUntil`. */
const isRenewal = (command: unknown) =>
  command instanceof TransactWriteCommand &&
  (command.input.TransactItems ?? []).every((action) =>
    action.Update?.UpdateExpression?.includes('leaseUntil'),
  );

/** The lease owner a doc-record put (a write-ahead) carries, if any. */
const ownerOf = (command: unknown) =>
  command instanceof PutCommand ? command.input.Item?.leaseOwner : undefined;

describe('a pass that outlasts its lease', () => {
  it('renews it while it writes postings, so its items stay held past the lease it took, and lands in one pass', async () => {
    const made = await forty();
    const ids = made.map((item) => item.id);
    // Each call takes a second on the writer's clock, two in flight: the pass (~125 calls) outlasts its 90 s lease.
    const clock = { ms: Date.now() };
    const seen = {
      owners: new Set<unknown>(),
      renewals: 0,
      firstUntil: 0,
      heldPastIt: undefined as boolean | undefined,
    };
    const slow = intercepting(table.client, async (command, send) => {
      clock.ms += 1_000;
      if (ownerOf(command)) seen.owners.add(ownerOf(command));

      if (ownerOf(command) && !seen.firstUntil)
        seen.firstUntil = (command as PutCommand).input.Item?.leaseUntil;
      if (isRenewal(command)) seen.renewals++;
      if (seen.firstUntil && clock.ms > seen.firstUntil && seen.heldPastIt === undefined) {
        // Past the end of the lease the pass took: another writer reading its items now finds each held.
        const docs = await docsOf(ids);
        seen.heldPastIt = docs.length === ids.length && docs.every((doc) => doc.leaseUntil > clock.ms);
      }
      return send(command);
    });
    const indexer = createIndexer({
      client: slow,
      tableName: table.tableName,
      items,
      now: () => clock.ms,
      concurrency: 2,
    });
    await indexer.reindexItems(ids);
    expect(await snapshot(table)).toMatchObject(expected(made));
    expect(seen.owners.size, 'passes (lease owners)').toBe(1);
    expect(indexer.counts.slowPasses).toBe(0);
    expect(seen.renewals).toBeGreaterThanOrEqual(2);
    expect(seen.heldPastIt).toBe(true);
  });

  it('stops writing postings once a renewal fails because another writer took an item over, and goes again', async () => {
    const made = await forty();
    const clock = { ms: Date.now() };
    const seen = { renewalFailed: false, releasedAfter: false, postingsBetween: 0 };
    const slow = intercepting(table.client, async (command, send) => {
      clock.ms += 1_000;
      if (seen.renewalFailed && !seen.releasedAfter) {
        if (
          command instanceof UpdateCommand &&
          command.input.UpdateExpression?.startsWith('REMOVE leaseOwner')
        )
          seen.releasedAfter = true;
        else if (JSON.stringify(command.input).includes('"T#')) seen.postingsBetween++;
      }
      if (!isRenewal(command) || seen.renewalFailed) return send(command);
      // Just before the first renewal, another writer takes the first item over (a put that moves its rev) and dies.
      const [doc] = await docsOf([made[0]?.id ?? 0]);
      await table.client.send(
        new PutCommand({
          TableName: table.tableName,
          Item: { ...doc, rev: doc?.rev + 1, leaseOwner: 'another writer', leaseUntil: clock.ms },
        }),
      );
      return send(command).catch((error: unknown) => {
        seen.renewalFailed = true;
        throw error;
      });
    });
    const options = { client: slow, tableName: table.tableName, items, now: () => clock.ms, concurrency: 2 };
    const indexer = createIndexer(options);
    await indexer.reindexItems(made.map((item) => item.id));
    expect(seen.renewalFailed).toBe(true);
    expect(seen.releasedAfter).toBe(true);
    // Writes of postings already in flight when the renewal failed may land; none is sent after it.
    expect(seen.postingsBetween).toBe(0);
    expect(indexer.counts.slowPasses).toBeGreaterThanOrEqual(1);
    expect(await snapshot(table)).toMatchObject(expected(made));
  });

  it("moves each doc record's rev, so a writer that read an item before the renewal cannot take it over after", async () => {
    const made = await forty();
    const first = made[0]?.id ?? 0;
    const clock = { ms: Date.now() };
    const takeover = { tried: false, landed: false };
    const slow = intercepting(table.client, async (command, send) => {
      clock.ms += 1_000;
      if (!isRenewal(command) || takeover.tried) return send(command);
      // Another writer, its clock past the lease the pass took, read the first item's doc record just before the
      // renewal; its write-ahead, conditional on the rev it read, comes just after.
      const [read] = await docsOf([first]);
      const reply = await send(command);
      takeover.tried = true;
      takeover.landed = await table.client
        .send(
          new PutCommand({
            TableName: table.tableName,
            Item: {
              ...read,
              rev: read?.rev + 1,
              leaseOwner: 'another writer',
              leaseUntil: clock.ms + 90_000,
            },
            ConditionExpression: 'rev = :rev',
            ExpressionAttributeValues: { ':rev': read?.rev },
          }),
        )
        .then(
          () => true,
          () => false,
        );
      return reply;
    });
    const options = { client: slow, tableName: table.tableName, items, now: () => clock.ms, concurrency: 2 };
    const indexer = createIndexer(options);
    await indexer.reindexItems(made.map((item) => item.id));
    expect(takeover).toStrictEqual({ tried: true, landed: false });
    expect(indexer.counts.slowPasses).toBe(0);
    expect(await snapshot(table)).toMatchObject(expected(made));
  });
});
