import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { docKey, leaseKey } from '../../lib/search/format/keys.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { isHeld } from '../../lib/search/write/lease.ts';
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

/** A lease renewal among a writer's calls: an update of a lease record. */
const isRenewal = (command: unknown) =>
  command instanceof UpdateCommand && String(command.input.Key?.pk).startsWith('LEASE#');

/** The lease owner a doc-record put (a write-ahead) carries, if any. */
const ownerOf = (command: unknown) =>
  command instanceof PutCommand ? command.input.Item?.leaseOwner : undefined;

/** A writer's calls each take a second on its clock (two in flight): a pass of forty items outlasts its 90 s lease. */
function slowWriter(around: (command: unknown) => Promise<void> = async () => {}) {
  const clock = { ms: Date.now() };
  const seen = { owners: new Set<unknown>(), renewals: 0, firstUntil: 0 };
  const client = intercepting(table.client, async (command, send) => {
    clock.ms += 1_000;
    const owner = ownerOf(command);
    if (owner) seen.owners.add(owner);
    if (owner && !seen.firstUntil) seen.firstUntil = (command as PutCommand).input.Item?.leaseUntil;
    if (isRenewal(command)) seen.renewals++;
    await around(command);
    return send(command);
  });
  const indexer = createIndexer({
    client,
    tableName: table.tableName,
    items,
    now: () => clock.ms,
    concurrency: 2,
  });
  return { indexer, clock, seen };
}

describe('a pass that outlasts its lease', () => {
  it('renews it while it writes postings, so its items stay held past the lease it took, and lands in one pass', async () => {
    const made = await forty();
    const ids = made.map((item) => item.id);
    const past = { checked: false, held: false };
    const writer = slowWriter(async () => {
      const { clock, seen } = writer;
      if (past.checked || !seen.firstUntil || clock.ms <= seen.firstUntil) return;
      // Past the end of the lease the pass took (which its doc records carry), another writer reading its items
      // finds each held, by the end its lease record holds.
      past.checked = true;
      const owner = [...seen.owners][0] as string;
      const { Item: record } = await table.client.send(
        new GetCommand({ TableName: table.tableName, Key: leaseKey(owner), ConsistentRead: true }),
      );
      const renewed = new Map([[owner, Number(record?.leaseUntil)]]);
      const docs = await docsOf(ids);
      past.held = docs.length === ids.length && docs.every((doc) => isHeld(doc, () => clock.ms, renewed));
    });
    await writer.indexer.reindexItems(ids);
    expect(await snapshot(table)).toMatchObject(expected(made));
    expect(writer.seen.owners.size, 'passes (lease owners)').toBe(1);
    expect(writer.indexer.counts.slowPasses).toBe(0);
    expect(writer.seen.renewals).toBeGreaterThanOrEqual(2);
    expect(past).toStrictEqual({ checked: true, held: true });
  });

  it('keeps another writer, its clock past the lease the pass took, from taking its items over', async () => {
    const made = await forty();
    const ids = made.map((item) => item.id);
    const otherStarts = Promise.withResolvers<void>();
    const writer = slowWriter(async () => {
      if (writer.seen.firstUntil && writer.clock.ms > writer.seen.firstUntil) otherStarts.resolve();
    });
    // The other writer reads and writes the table directly, on the pass's clock, once that is past its first lease.
    const takeovers = { puts: 0 };
    const direct = intercepting(table.client, async (command, send) => {
      if (ownerOf(command)) takeovers.puts++;
      return send(command);
    });
    const other = createIndexer({
      client: direct,
      tableName: table.tableName,
      items,
      now: () => writer.clock.ms,
    });
    await Promise.all([
      writer.indexer.reindexItems(ids),
      otherStarts.promise.then(() => other.reindexItems(ids)),
    ]);
    expect(takeovers.puts, 'write-aheads of the other writer').toBe(0);
    expect(writer.seen.owners.size, 'passes of the first').toBe(1);
    expect(await snapshot(table)).toMatchObject(expected(made));
  });

  it('stops writing postings once a renewal fails, and goes again', async () => {
    const made = await forty();
    const seen = { refused: 0, failed: false, releasedAfter: false, postingsBetween: 0 };
    const writer = slowWriter(async (command) => {
      if (seen.failed && !seen.releasedAfter) {
        if (
          command instanceof UpdateCommand &&
          command.input.UpdateExpression?.startsWith('REMOVE leaseOwner')
        )
          seen.releasedAfter = true;
        else if (JSON.stringify((command as PutCommand).input).includes('"T#')) seen.postingsBetween++;
      }
      // The table refuses the first renewal (an error no retry helps with).
      if (!isRenewal(command) || seen.refused > 0) return;
      seen.refused++;
      seen.failed = true;
      throw new Error('the table refused the renewal');
    });
    await writer.indexer.reindexItems(made.map((item) => item.id));
    expect(seen.failed).toBe(true);
    expect(seen.releasedAfter).toBe(true);
    // The write whose fence started the renewal goes on; none is sent after the renewal failed.
    expect(seen.postingsBetween).toBeLessThanOrEqual(1);
    expect(writer.indexer.counts.slowPasses).toBeGreaterThanOrEqual(1);
    expect(writer.seen.owners.size).toBeGreaterThan(1);
    expect(await snapshot(table)).toMatchObject(expected(made));
  });

  it('retries a renewal that timed out only while the lease it extends still lets a write through', async () => {
    const made = await forty();
    const timedOut = () =>
      Object.assign(new Error('a request has exceeded the configured requestTimeout'), {
        name: 'TimeoutError',
      });
    // The first renewal's first attempt times out at once: its retry lands, and the pass goes on. The pass's other
    // writes wait for the retry: on its clock (a second a call) they would otherwise reach the fence within the
    // retry's back-off of real time when the table answers fast, and the pass would stop for want of time, not of
    // the retry.
    const quick = { attempts: 0, retried: Promise.withResolvers<void>() };
    quick.retried.resolve();
    const writer = slowWriter(async (command) => {
      if (!isRenewal(command)) return quick.retried.promise;
      if (++quick.attempts > 1) return quick.retried.resolve();
      quick.retried = Promise.withResolvers<void>();
      throw timedOut();
    });
    await writer.indexer.reindexItems(made.map((item) => item.id));
    expect(quick.attempts).toBeGreaterThanOrEqual(2);
    expect(writer.seen.owners.size).toBe(1);
    // Another pass's first renewal takes 40 s before it times out, past the fence of the lease it was to extend: no
    // retry of it is sent, and the pass stops.
    const more = await forty();
    const renewalsOf = new Map<string, number>();
    const late = slowWriter(async (command) => {
      if (!isRenewal(command)) return;
      const key = String((command as UpdateCommand).input.Key?.pk);
      renewalsOf.set(key, (renewalsOf.get(key) ?? 0) + 1);
      if (renewalsOf.size > 1) return;
      late.clock.ms += 40_000;
      throw timedOut();
    });
    await late.indexer.reindexItems(more.map((item) => item.id));
    expect([...renewalsOf.values()][0], "attempts at the first pass's renewal").toBe(1);
    expect(late.indexer.counts.slowPasses).toBeGreaterThanOrEqual(1);
    expect(await snapshot(table)).toMatchObject(expected([...made, ...more]));
  });
});
