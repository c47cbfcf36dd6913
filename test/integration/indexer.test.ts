import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { decodeBlock } from '../../lib/search/format/blocks.ts';
import { queryWeights } from '../../lib/search/format/bm25.ts';
import {
  docKey,
  endOfSealedSk,
  homeKey,
  PAGE_IDS,
  shrunkOf,
  statsKey,
  termRows,
} from '../../lib/search/format/keys.ts';
import { rebuildIndex } from '../../lib/search/operations/rebuild.ts';
import { createSearch } from '../../lib/search/read/query.ts';
import { tokenize } from '../../lib/search/text/tokenizer.ts';
import { analyze, createIndexer } from '../../lib/search/write/indexer.ts';
import { createPostingWriter, normOf, type Posting } from '../../lib/search/write/postings.ts';
import {
  blocksOf,
  crashingClient,
  expected,
  intercepting,
  later,
  scanAll,
  snapshot,
  type Table,
} from '../support/index-state.ts';
import { copyOf, freshTable } from '../support/stack.ts';

let table: Table;
let items: ItemRepository;
const text = {
  name: 'Trail Boot',
  description: 'A waterproof leather hiking boot. Waterproof and warm for winter hiking trails.',
  tags: ['outdoor', 'hiking'],
  attributes: {},
};

beforeEach(async () => {
  table = await freshTable();
  items = createItemRepository(table);
});

/** Adds `by` to a counts part's `name`, as a manual edit of the table would: drift for `npm run reindex` to repair. */
const drift = (part: number, name: string, by: number) =>
  table.client.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: statsKey(part),
      UpdateExpression: 'ADD #name :by',
      ExpressionAttributeNames: { '#name': name },
      ExpressionAttributeValues: { ':by': by },
    }),
  );

// DynamoDB Local keeps every table (and its stream) in memory and slows as they pile up: a long loop of a test here
// (INDEX_REPEATS) would measure that instead.
afterEach(() => table.client.send(new DeleteTableCommand({ TableName: table.tableName })));

describe('index maintenance on DynamoDB Local', () => {
  it('indexes, re-indexes and un-indexes an item exactly', async () => {
    const indexer = createIndexer({ ...table, items });
    const boot = await items.create(text);
    const jacket = await items.create({
      ...text,
      name: 'Rain Jacket',
      description: 'Light rain shell for hikes.',
    });
    expect(await indexer.reindexItem(boot.id)).toBe('indexed');
    expect(await indexer.reindexItem(jacket.id)).toBe('indexed');
    expect(await indexer.reindexItem(boot.id)).toBe('unchanged');
    expect(await snapshot(table)).toMatchObject(expected([boot, jacket]));

    const changed = await items.update(boot.id, () => ({
      ...text,
      description: 'Insulated snow boot for winter.',
    }));
    await indexer.reindexItem(boot.id);
    expect(await snapshot(table)).toMatchObject(expected([changed, jacket]));

    await items.delete(jacket.id);
    expect(await indexer.reindexItem(jacket.id)).toBe('removed');
    expect(await snapshot(table)).toStrictEqual({
      ...expected([changed]),
      docs: [{ id: `D#${boot.id}`, pending: [] }],
    });
  });

  it('writes, for an edit that keeps the item within twice its norm, only the terms whose tf rose (one that lowers its length or a tf puts it in the shrunk set); a compaction or one past twice it, all', async () => {
    const indexer = createIndexer({ ...table, items, blockCapacity: 4 });
    const compacting = createIndexer({ ...table, items, blockCapacity: 4, compactAt: 1 });
    const others = [];
    for (const name of ['Rain Jacket', 'Snow Boot', 'Camp Stove'])
      others.push(await items.create({ ...text, name }));
    const boot = await items.create(text);
    await indexer.reindexItems([...others, boot].map((item) => item.id));
    const termRecords = async () =>
      new Map(
        // A term's tail as its own row (a form's is in its stem's home record: keys.ts termRows), without the
        // home's version, which any write of the home moves.
        (await scanAll(table))
          .flatMap(termRows)
          .filter((row) => String(row.pk).startsWith('T#'))
          .map(({ v: _v, ...row }) => [
            `${row.pk} ${row.sk}`,
            JSON.stringify(row, (_, v) => (v instanceof Uint8Array ? [...v] : v)),
          ]),
      );
    /** The terms whose records `edit` rewrote (any of a term's tail, blocks or directory pages). */
    const rewritten = async (edit: () => Promise<Item>, by = indexer) => {
      const before = await termRecords();
      const item = await edit();
      expect(await by.reindexItem(item.id)).toBe('indexed');
      const after = await termRecords();
      const keys = new Set([...before.keys(), ...after.keys()]);
      const terms = [...keys]
        .filter((key) => before.get(key) !== after.get(key))
        .map((key) => key.split(' ')[0]);
      return { item, terms: [...new Set(terms)].map((pk) => pk?.slice(2)).sort() };
    };
    /**
     * The tfs the item's postings carry: an edit that keeps the norm writes a term whose tf rose and keeps the
     * posting of one whose tf fell (target.ts `postingTarget`).
     */
    let posted: Record<string, number> = { ...analyze(boot).terms };
    /** The terms whose tf `item` holds above its postings' (or new), as an edit that keeps the norm writes them. */
    const rising = (item: Item) =>
      Object.entries(analyze(item).terms)
        .filter(([term, tf]) => tf > (posted[term] ?? 0))
        .map(([term]) => term)
        .sort();
    /** The postings' tfs after an edit to `item` that keeps the norm: each the greater of the two. */
    const keep = (item: Item) => {
      const terms = analyze(item).terms;
      posted = Object.fromEntries(
        [...new Set([...Object.keys(posted), ...Object.keys(terms)])].map((term) => [
          term,
          Math.max(posted[term] ?? 0, terms[term] ?? 0),
        ]),
      );
    };
    /** The item's cut: the terms whose postings carry a tf above the item's, with the item's (0: none). */
    const cutOf = (item: Item) => {
      const terms = analyze(item).terms;
      return Object.fromEntries(
        Object.entries(posted)
          .filter(([term, tf]) => (terms[term] ?? 0) < tf)
          .map(([term]) => [term, terms[term] ?? 0]),
      );
    };
    /** Every term of the postings and of `item`: what an edit that rewrites the item's postings writes. */
    const all = (item: Item) =>
      [...new Set([...Object.keys(posted), ...Object.keys(analyze(item).terms)])].sort();
    /** The lengths the item's postings carry. */
    const lengths = async () =>
      new Set(
        (await scanAll(table))
          .flatMap(termRows)
          .filter((row) => String(row.pk).startsWith('T#') && String(row.sk).startsWith('K#'))
          .flatMap((row) => decodeBlock(row.p).filter((p) => p.id === boot.id))
          .map((p) => p.dl),
      );
    const edit = (description: string) => () => items.update(boot.id, () => ({ ...text, description }));
    // A new item's postings carry its length (13 words).
    expect(await lengths()).toStrictEqual(new Set([analyze(boot).dl]));

    /** The shrunk set's entries (keys.ts): the items whose postings carry a length or tfs above theirs. */
    const shrunk = async () => shrunkOf(await scanAll(table));

    // Longer (one new word, and one more of a word it has), within twice its norm: the terms whose tf rose.
    const longer = await rewritten(edit(`${text.description} Resoled winter boot.`));
    expect(analyze(longer.item).dl).toBeGreaterThan(analyze(boot).dl);
    expect(longer.terms).toStrictEqual(rising(longer.item));
    expect(longer.terms).toStrictEqual(['=resoled', 'boot', 'resol', 'winter']);
    keep(longer.item);
    expect(await lengths()).toStrictEqual(new Set([analyze(boot).dl]));
    expect(await shrunk()).toStrictEqual([]);
    expect(await snapshot(table, 4)).toMatchObject(expected([...others, longer.item]));

    // Shorter than it was when its postings were written, and with words gone: no term rises, so no term record is
    // written; the norm kept (13), the item in the shrunk set with its length and its cut (the tfs that fell, 0 for
    // the words gone: ghosts), which its postings are scored at.
    const shorter = await rewritten(
      edit('A waterproof leather hiking boot. Waterproof and warm for winter trails.'),
    );
    const norm = analyze(boot).dl;
    expect(analyze(shorter.item).dl).toBeLessThan(norm);
    expect(shorter.terms).toStrictEqual([]);
    expect(rising(shorter.item)).toStrictEqual([]);
    keep(shorter.item);
    const shorterCut = cutOf(shorter.item);
    expect(Object.values(shorterCut)).toContain(0);
    expect(await lengths()).toStrictEqual(new Set([norm]));
    expect(await shrunk()).toStrictEqual([
      { id: boot.id, dl: analyze(shorter.item).dl, norm, cut: shorterCut },
    ]);
    expect(await snapshot(table, 4)).toMatchObject(expected([...others, shorter.item]));

    // Shorter again: still nothing written but the entry, with the new length and the word taken out a ghost.
    const trimmed = await rewritten(
      edit('A waterproof leather hiking boot. Waterproof and warm for trails.'),
    );
    expect(analyze(trimmed.item).dl).toBeLessThan(analyze(shorter.item).dl);
    expect(trimmed.terms).toStrictEqual([]);
    const trimmedCut = cutOf(trimmed.item);
    expect(trimmedCut).toStrictEqual({ ...shorterCut, winter: 0 });
    expect(await shrunk()).toStrictEqual([
      { id: boot.id, dl: analyze(trimmed.item).dl, norm, cut: trimmedCut },
    ]);
    expect(await snapshot(table, 4)).toMatchObject(expected([...others, trimmed.item]));

    // Back to its first text: the words it gained back rise above the cut's tfs but not above the postings', so
    // again nothing is written; the words of the longer text stay ghosts (in the set, at the norm's length).
    const back = await rewritten(edit(text.description));
    expect(analyze(back.item).dl).toBe(norm);
    expect(back.terms).toStrictEqual([]);
    expect(await shrunk()).toStrictEqual([{ id: boot.id, dl: norm, norm, cut: cutOf(back.item) }]);
    expect(Object.keys(cutOf(back.item)).sort()).toStrictEqual(['=resoled', 'boot', 'resol', 'winter']);
    expect(await snapshot(table, 4)).toMatchObject(expected([...others, back.item]));

    // Longer again by the words it lost: the postings already carry them, so nothing is written and the item leaves
    // the set.
    const again = await rewritten(edit(`${text.description} Resoled winter boot.`));
    expect(again.terms).toStrictEqual([]);
    expect(await shrunk()).toStrictEqual([]);
    expect(await snapshot(table, 4)).toMatchObject(expected([...others, again.item]));

    // Shrunk by a writer that compacts a set of one: every term again (the ghosts taken out), with the new length's
    // norm, out of the set.
    const short = await rewritten(edit('A waterproof leather hiking boot.'), compacting);
    expect(analyze(short.item).dl).toBeLessThan(norm);
    expect(short.terms).toStrictEqual(all(short.item));
    posted = { ...analyze(short.item).terms };
    expect(await lengths()).toStrictEqual(new Set([normOf(analyze(short.item).dl)]));
    expect(await shrunk()).toStrictEqual([]);
    expect(await snapshot(table, 4)).toMatchObject(expected([...others, short.item]));

    // Longer than twice its norm: every term again, so a bound stays within half the item's length of its score.
    const grown = await rewritten(
      edit(
        `${text.description} Resoled in spring with a new heel, new laces and a waxed finish for wet paths.`,
      ),
    );
    expect(analyze(grown.item).dl).toBeGreaterThan(2 * normOf(analyze(short.item).dl));
    expect(grown.terms).toStrictEqual(all(grown.item));
    expect(await lengths()).toStrictEqual(new Set([normOf(analyze(grown.item).dl)]));
    expect(await snapshot(table, 4)).toMatchObject(expected([...others, grown.item]));
  });

  it('compacts the shrunk set in one batch once it holds compactAt entries; npm run reindex compacts what is left', async () => {
    const indexer = createIndexer({ ...table, items, blockCapacity: 3, compactAt: 4 });
    const long = 'boot trail rain lamp rope boot trail rain lamp rope camp stove';
    const made = [];
    for (const name of ['Boot', 'Trail', 'Rain', 'Lamp', 'Rope', 'Camp'])
      made.push(await items.create({ ...text, name, description: long }));
    await indexer.reindexItems(made.map((item) => item.id));
    const live = new Map(made.map((item) => [item.id, item]));
    const shrink = async (item: Item) => {
      const short = await items.update(item.id, () => ({
        ...text,
        name: item.name,
        description: 'boot rope',
      }));
      live.set(item.id, short);
      expect(await indexer.reindexItem(item.id)).toBe('indexed');
      return short;
    };
    const lengthsOf = async (ids: number[]) =>
      new Set(
        (await scanAll(table))
          .flatMap(termRows)
          .filter((row) => String(row.pk).startsWith('T#') && String(row.sk).startsWith('K#'))
          .flatMap((row) => decodeBlock(row.p).filter((p) => ids.includes(p.id)))
          .map((p) => p.dl),
      );
    const norm = analyze(made[0] as Item).dl;
    // Three shrink: three entries, their postings as they were written (the norm: the long text's length).
    for (const item of made.slice(0, 3)) await shrink(item);
    expect(shrunkOf(await scanAll(table)).map((entry) => entry.id)).toStrictEqual(
      made.slice(0, 3).map((item) => item.id),
    );
    expect(await lengthsOf(made.slice(0, 3).map((item) => item.id))).toStrictEqual(new Set([norm]));
    expect(await snapshot(table, 3)).toMatchObject(expected([...live.values()]));
    // The fourth: the writer that added it rewrites all four, each with its length's norm, and empties the set.
    const fourth = await shrink(made[3] as Item);
    expect(shrunkOf(await scanAll(table))).toStrictEqual([]);
    expect(await lengthsOf(made.slice(0, 4).map((item) => item.id))).toStrictEqual(
      new Set([normOf(analyze(fourth).dl)]),
    );
    expect(await snapshot(table, 3)).toMatchObject(expected([...live.values()]));
    // One more, then a reindex: it compacts a set of any size.
    await shrink(made[4] as Item);
    expect(shrunkOf(await scanAll(table))).toHaveLength(1);
    const report = await rebuildIndex({ ...table, indexer });
    expect(report).toMatchObject({ compacted: 1 });
    expect(shrunkOf(await scanAll(table))).toStrictEqual([]);
    expect(await snapshot(table, 3)).toMatchObject(expected([...live.values()]));
  });

  it('converges after a crash at any step of a rebuild', async () => {
    // Crash at the 1st, 2nd, … call of a rebuild (until one completes), each time on a fresh table,
    // then let a clean rebuild run: the index must be exactly what a from-scratch build gives.
    let crashes = 0;
    for (let failAt = 1; failAt < 80; failAt++) {
      const t = await freshTable();
      const repo = createItemRepository(t);
      const boot = await repo.create(text);
      await createIndexer({ ...t, items: repo }).reindexItem(boot.id);
      const changed = await repo.update(boot.id, () => ({
        ...text,
        description: 'Insulated snow boot. Snow, ice and cold.',
      }));
      const crashed = await createIndexer({
        client: crashingClient(t, failAt),
        tableName: t.tableName,
        items: repo,
      })
        .reindexItem(boot.id)
        .then(
          () => false,
          () => true,
        );
      await later({ ...t, items: repo }).reindexItem(boot.id);
      expect(await snapshot(t), `crash at call ${failAt}`).toStrictEqual({
        ...expected([changed]),
        docs: [{ id: `D#${boot.id}`, pending: [] }],
      });
      if (!crashed) break;
      crashes++;
    }
    expect(crashes).toBeGreaterThan(3);
  }, 180_000);

  it('keeps the doc record bounded and converges however many rebuilds die on the way', async () => {
    const boot = await items.create(text);
    await createIndexer({ ...table, items }).reindexItem(boot.id);
    // Six versions, each rebuild dying after its write-ahead and some postings (each ten minutes after the last,
    // so the dead writer's lease has run out): `pending` never holds more than one state.
    for (let version = 2; version <= 7; version++) {
      await items.update(boot.id, () => ({
        ...text,
        description: `Version ${version} words w${version}a w${version}b.`,
      }));
      const clock = Date.now() + version * 10 * 60_000;
      await createIndexer({
        client: crashingClient(table, 6),
        tableName: table.tableName,
        items,
        now: () => clock,
      })
        .reindexItem(boot.id)
        .then(
          () => expect.fail('the writer was to die'),
          () => {},
        );
      const { docs } = await snapshot(table);
      expect(docs).toStrictEqual([{ id: `D#${boot.id}`, pending: [expect.anything()] }]);
      // The write-ahead record holds the target as its change from the committed map, not a second whole map.
      const { Item: record } = await table.client.send(
        new GetCommand({ TableName: table.tableName, Key: docKey(boot.id), ConsistentRead: true }),
      );
      expect(record?.pending).toStrictEqual([
        {
          version: expect.any(Number),
          dl: expect.any(Number),
          norm: expect.any(Number),
          change: expect.any(Uint8Array),
        },
      ]);
    }
    await items.delete(boot.id);
    await createIndexer({ ...table, items, now: () => Date.now() + 100 * 60_000 }).reindexItem(boot.id);
    expect(await snapshot(table)).toStrictEqual({
      postings: [],
      df: {},
      stats: { docs: 0, len: 0 },
      docs: [],
    });
  });

  it('stops a writer whose lease ran out before it writes a posting, and lets another take the item over', async () => {
    const boot = await items.create(text);
    // The writer's clock jumps past its lease right after its write-ahead (its third call).
    let calls = 0;
    const counting = intercepting(table.client, async (command, send) => {
      calls++;
      return send(command);
    });
    const slow = createIndexer({
      client: counting,
      tableName: table.tableName,
      items,
      now: () => Date.now() + (calls >= 3 ? 10 * 60_000 : 0),
    });
    await expect(slow.reindexItem(boot.id)).rejects.toThrow(/ran out of its lease/);
    const stopped = await snapshot(table);
    expect(stopped.postings).toStrictEqual([]);
    expect(stopped.docs).toStrictEqual([{ id: `D#${boot.id}`, pending: [expect.anything()] }]);
    await later({ ...table, items }).reindexItem(boot.id);
    expect(await snapshot(table)).toMatchObject(expected([boot]));
  });

  it("indexes a batch on a slow table in passes that fit its invocation's time, and leaves what does not fit for the next", async () => {
    const t = await freshTable();
    const repo = createItemRepository(t);
    const made = [];
    for (let i = 0; i < 40; i++)
      made.push(await repo.create({ ...text, name: `spruce${i} fir${i}`, description: 'larch' }));
    // Each call takes a second on the writer's clock, four in flight, and the invocation ends 120 s in: a pass of 40
    // items (~125 calls) cannot land before it (less the 15 s fence).
    const clock = { ms: Date.now() };
    const deadline = clock.ms + 120_000;
    const owners = new Map<unknown, number>();
    const slow = intercepting(t.client, (command, send) => {
      clock.ms += 1_000;
      const owner = command instanceof PutCommand ? command.input.Item?.leaseOwner : undefined;
      if (owner) owners.set(owner, (owners.get(owner) ?? 0) + 1);
      return send(command);
    });
    const options = {
      client: slow,
      tableName: t.tableName,
      items: repo,
      now: () => clock.ms,
      concurrency: 4,
    };
    const indexer = createIndexer(options);
    const outcomes = await indexer.reindexItems(
      made.map((item) => item.id),
      { deadline },
    );
    // Doc-record puts under each pass's lease owner: the first pass (all 40) found after its write-ahead that its
    // postings would outlast the invocation and stopped there; the next went in passes sized to the time left at that
    // pace (halving alone would have kept them at 20). Its last write went before the deadline.
    const puts = [...owners.values()];
    expect(puts.length).toBeGreaterThanOrEqual(2);
    expect(puts[0]).toBe(40);
    expect(puts.at(-1)).toBeLessThan(20);
    expect(clock.ms).toBeLessThanOrEqual(deadline);
    expect(indexer.counts.slowPasses).toBeGreaterThanOrEqual(1);
    // What it had no time for has no outcome (the stream handler reports it failed, for Lambda to send again); the
    // next invocation indexes it.
    const left = made.filter((item) => !outcomes.has(item.id));
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(40);
    await indexer.reindexItems(left.map((item) => item.id));
    expect(await snapshot(t)).toMatchObject(expected(made));
  });

  it("stops waiting for an item another writer holds once its invocation's time is up, leaving it for the stream", async () => {
    const [free, held] = [await items.create(text), await items.create({ ...text, name: 'Held Boot' })];
    // A writer takes its lease on `held`, then stalls after its write-ahead: alive, its lease 90 s long.
    const stall = {
      leased: false,
      reached: Promise.withResolvers<void>(),
      released: Promise.withResolvers<void>(),
    };
    const stalling = intercepting(table.client, async (command, send) => {
      if (stall.leased) {
        stall.reached.resolve();
        await stall.released.promise;
      }
      if (command instanceof PutCommand && command.input.Item?.leaseOwner) stall.leased = true;
      return send(command);
    });
    const first = createIndexer({ ...table, client: stalling, items }).reindexItem(held.id);
    await stall.reached.promise;
    // Another writer, each call 5 s on its clock, with 40 s left: the held item's lease outlasts its time.
    const clock = { ms: Date.now() };
    const deadline = clock.ms + 40_000;
    const takeovers = new Set<unknown>();
    const ticking = intercepting(table.client, (command, send) => {
      clock.ms += 5_000;
      const item = command instanceof PutCommand ? command.input.Item : undefined;
      if (item?.leaseOwner && item.pk === docKey(held.id).pk) takeovers.add(item.leaseOwner);
      return send(command);
    });
    const writer = createIndexer({ ...table, client: ticking, items, now: () => clock.ms });
    const outcomes = await writer.reindexItems([free.id, held.id], { deadline });
    expect(outcomes.get(free.id)).toBe('indexed');
    expect(outcomes.has(held.id), 'the held item: no outcome, for the stream to deliver again').toBe(false);
    expect(takeovers.size, 'write-aheads on the held item').toBe(0);
    expect(writer.counts.slowPasses).toBe(0);
    stall.released.resolve();
    expect(await first).toBe('indexed');
    expect(await snapshot(table)).toMatchObject(expected([free, held]));
  });

  it.each([
    { case: 'no compaction starts within the fence', left: 5_000, slowPasses: 0 },
    { case: 'one that cannot land in time stops after its write-ahead', left: 16_000, slowPasses: 1 },
  ])("leaves the shrunk set to the next writer when the invocation's time is up: $case", async (timing) => {
    const long = 'boot trail rain lamp rope boot trail rain lamp rope camp stove';
    const made = [];
    for (const name of ['Boot', 'Trail']) made.push(await items.create({ ...text, name, description: long }));
    await later({ ...table, items }).reindexItems(made.map((item) => item.id));
    const short = await items.update(made[0]?.id ?? 0, () => ({
      ...text,
      name: 'Boot',
      description: 'boot rope',
    }));
    // Its pass commits `left` before the invocation's end; every call after takes a second on its clock.
    const clock = { ms: Date.now(), committed: false };
    const deadline = clock.ms + 120_000;
    const late = intercepting(table.client, (command, send) => {
      if (clock.committed) clock.ms += 1_000;
      else if (command instanceof TransactWriteCommand) {
        clock.ms = deadline - timing.left;
        clock.committed = true;
      }
      return send(command);
    });
    const writer = createIndexer({ ...table, client: late, items, now: () => clock.ms, compactAt: 1 });
    expect((await writer.reindexItems([short.id], { deadline })).get(short.id)).toBe('indexed');
    expect(writer.counts.slowPasses).toBe(timing.slowPasses);
    expect(shrunkOf(await scanAll(table)).map((entry) => entry.id)).toStrictEqual([short.id]);
    expect(await snapshot(table)).toMatchObject(expected([short, made[1] as Item]));
    // A writer with time compacts it.
    expect(await later({ ...table, items }).compact(1)).toBe(1);
    expect(shrunkOf(await scanAll(table))).toStrictEqual([]);
  });

  it('indexes a batch again in smaller passes when a request of its pass times out, instead of failing it', async () => {
    const t = await freshTable();
    const repo = createItemRepository(t);
    const made = [];
    for (let i = 0; i < 6; i++)
      made.push(await repo.create({ ...text, name: `aspen${i}`, description: 'birch' }));
    // The writer's 12th request times out (after the SDK's own attempts), as on a table too slow to answer.
    const calls = { n: 0 };
    const timingOut = intercepting(t.client, (command, send) => {
      if (++calls.n !== 12) return send(command);
      const error = Object.assign(new Error('a request has exceeded the configured requestTimeout'), {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
      });
      return Promise.reject(error);
    });
    const indexer = createIndexer({ client: timingOut, tableName: t.tableName, items: repo });
    await indexer.reindexItems(made.map((item) => item.id));
    expect(calls.n).toBeGreaterThan(12);
    expect(indexer.counts.slowPasses).toBe(1);
    expect(indexer.counts.passes).toBeGreaterThan(1);
    expect(await snapshot(t)).toMatchObject(expected(made));
  });

  it('counts its passes and times each of their steps, one after another, as the stream handler publishes them', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await items.create({ ...text, name: `alder${i}` }));
    // Every request takes 20 ms more, so each step that sends one takes at least that.
    const delayed = intercepting(table.client, async (command, send) => {
      await sleep(20);
      return send(command);
    });
    const indexer = createIndexer({ client: delayed, tableName: table.tableName, items });
    const begin = performance.now();
    await indexer.reindexItems(made.map((item) => item.id));
    const wallMs = performance.now() - begin;
    const { passes, stepMs } = indexer.counts;
    expect(passes).toBe(1);
    for (const step of ['plan', 'writeAhead', 'postings', 'commit'] as const)
      expect(stepMs[step], step).toBeGreaterThanOrEqual(20);
    // Nothing to roll back: no request.
    expect(stepMs.rollback).toBeLessThan(20);
    const total = Object.values(stepMs).reduce((sum, ms) => sum + ms, 0);
    expect(total).toBeLessThanOrEqual(wallMs);
    expect(total).toBeGreaterThan(wallMs * 0.5);
    await indexer.reindexItems(made.map((item) => item.id));
    expect(indexer.counts.passes).toBe(2);
  });

  it('puts a term back in the dictionary when a sealed block gains its first posting after its df fell to 0 (regression: found by the model test)', async () => {
    const t = await freshTable();
    const repo = createItemRepository(t);
    const indexer = createIndexer({ ...t, items: repo, blockCapacity: 3 });
    // Past twice the item's norm: the edit rewrites all its postings, the word's taken out rather than kept as a ghost.
    const plain = { ...text, description: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ') };
    const made = [];
    // Four items with the word: the first three seal a block, the fourth stays in the tail.
    for (let i = 0; i < 4; i++) made.push(await repo.create({ ...text, description: 'lantern boot' }));
    for (const item of made) await indexer.reindexItem(item.id);
    // Every posting of the word removed, the sealed block's first (the block stays, empty).
    const without = [];
    for (const item of made.slice(0, 3)) without.push(await repo.update(item.id, () => plain));
    await indexer.reindexItems(made.slice(0, 3).map((item) => item.id));
    // The last posting, in the tail, goes last: that tail write sees df 0 and leaves the dictionary.
    await repo.delete((made[3] as Item).id);
    await indexer.reindexItem((made[3] as Item).id);
    // The word back in an item of the sealed block: only the sealed part changes, and the df with it.
    const first = made[0] as Item;
    const back = await repo.update(first.id, () => ({ ...text, description: 'lantern boot' }));
    await indexer.reindexItem(first.id);
    expect(await snapshot(t, 3)).toMatchObject(expected([back, ...without.slice(1)]));
    const lantern = await t.client.send(
      new GetCommand({ TableName: t.tableName, Key: homeKey('lantern'), ConsistentRead: true }),
    );
    expect(lantern.Item?.wt).toBe('lantern');
  });

  it('indexes and finds words that are also JavaScript property names (regression: found by fuzzing)', async () => {
    const indexer = createIndexer({ ...table, items });
    const item = await items.create({
      ...text,
      description: 'constructor prototype hasOwnProperty toString valueOf',
    });
    expect(await indexer.reindexItem(item.id)).toBe('indexed');
    expect(await snapshot(table)).toMatchObject(expected([item]));
    const hits = await createSearch(table)({
      terms: queryWeights(tokenize('constructor prototype')),
      topK: 5,
      minScore: 0,
      accept: async (ids) => new Set(ids),
    });
    expect(hits.map((h) => [h.id, h.matchedTerms])).toStrictEqual([[item.id, ['constructor', 'prototyp']]]);
    await items.delete(item.id);
    expect(await indexer.reindexItem(item.id)).toBe('removed');
    expect((await snapshot(table)).postings).toStrictEqual([]);
  });

  it('keeps an item findable by a word it keeps at every step of a rebuild that moves its postings', async () => {
    const indexer = createIndexer({ ...table, items });
    const boot = await items.create(text);
    await indexer.reindexItem(boot.id);
    // A longer description changes the item's length, so every posting of it is rewritten with its new length.
    await items.update(boot.id, () => ({ ...text, description: `${text.description} Resoled twice.` }));
    const search = createSearch(table);
    const found: boolean[] = [];
    const watching = intercepting(table.client, async (command, send) => {
      const output = await send(command);
      const hits = await search({
        terms: queryWeights(tokenize('waterproof')),
        topK: 1,
        minScore: 0,
        accept: async (ids) => new Set(ids),
      });
      found.push(hits.some((hit) => hit.id === boot.id));
      return output;
    });
    expect(
      await createIndexer({ client: watching, tableName: table.tableName, items }).reindexItem(boot.id),
    ).toBe('indexed');
    expect(found.length).toBeGreaterThan(3);
    expect(found).toStrictEqual(found.map(() => true));
  });

  it('gives the same index when rebuilds of one item run concurrently', async () => {
    const boot = await items.create(text);
    await Promise.all(
      Array.from({ length: 4 }, () => createIndexer({ ...table, items }).reindexItem(boot.id)),
    );
    expect(await snapshot(table)).toMatchObject(expected([boot]));
  });

  describe('with blocks of three postings, so blocks split and empty', () => {
    const posting = (id: number, tf = 1): Posting => ({ term: 'w', id, tf, dl: 10 });

    it('redoes a term whose sealed blocks it read before and after another writer split one of them', async () => {
      const writer = createPostingWriter({ ...table, blockCapacity: 3 });
      // Sixteen postings one at a time: full blocks of three sealed from the tail (ends 30, 60, …, 150), 160 in it.
      for (let i = 1; i <= 16; i++) await writer.add([posting(i * 10)]);
      expect((await snapshot(table, 3)).postings.length).toBe(16);
      expect((await blocksOf(table, 'T#w')).map((b) => b.sk)).toStrictEqual([
        ...[30, 60, 90, 120, 150].map((end) => `K#${String(end).padStart(16, '0')}`),
        'K#~',
      ]);
      // An edit that adds the term to two older items, 41 and 145: their blocks are read one at a time. Between the
      // two reads another writer adds 42 and 43 to 41's block (40, 50, 60), which splits it.
      let queries = 0;
      let firstRead: Promise<unknown> | undefined;
      const racing = intercepting(table.client, async (command, send) => {
        if ((command.input as { Limit?: number }).Limit !== 1) return send(command);
        queries++;
        if (queries === 1) {
          firstRead = send(command) as unknown as Promise<unknown>;
          return firstRead;
        }
        if (queries === 2) {
          await firstRead;
          await writer.add([posting(42), posting(43)]);
        }
        return send(command);
      });
      await createPostingWriter({ client: racing, tableName: table.tableName, blockCapacity: 3 }).add([
        posting(41),
        posting(145),
      ]);
      // Every id sits in the block that covers it (snapshot checks the ranges), none lost, none twice; the term was
      // read again after the read that straddled the split.
      const after = await snapshot(table, 3);
      expect(after.postings.length).toBe(20);
      expect(after.df).toStrictEqual({ w: 20 });
      expect(queries).toBeGreaterThan(2);
    });

    // A block of a sparse term can end pages after an id it covers (keys.ts `sealedPk`), so a writer reads the pages
    // from the id's up: two keys, at two moments.
    it('redoes a term whose block another writer split between its reads of two directory pages', async () => {
      const writer = createPostingWriter({ ...table, blockCapacity: 3 });
      // Blocks (0, 30], (30, P + 20] (P: PAGE_IDS), which spans pages 0 and 1, and (P + 20, P + 50]; P + 60 in the
      // tail.
      const P = PAGE_IDS;
      for (const id of [10, 20, 30, 10_020, P + 10, P + 20, P + 30, P + 40, P + 50, P + 60])
        await writer.add([posting(id)]);
      // An edit adds the term to 10 050: its block ends in page 1. After the writer read page 0 (nothing from 10 050
      // up) another writer adds 10 060 and 10 070, which splits that block into (30, 10 070], now in page 0, and
      // (10 070, P + 20], the block the writer then finds in page 1: with room for 10 050, and the same bound, so
      // nothing but its `after` tells that it no longer covers 10 050.
      let queries = 0;
      const racing = intercepting(table.client, async (command, send) => {
        if (!(command instanceof QueryCommand)) return send(command);
        queries++;
        if (queries === 2) await writer.add([posting(10_060), posting(10_070)]);
        return send(command);
      });
      await createPostingWriter({ client: racing, tableName: table.tableName, blockCapacity: 3 }).add([
        posting(10_050),
      ]);
      // 10 050 is in the block that covers it (snapshot checks each block's ids against its `after`): the term was
      // read again.
      const after = await snapshot(table, 3);
      expect(after.postings.length).toBe(13);
      const holding = (await blocksOf(table, 'T#w')).find((block) => block.ids.includes(10_050));
      expect(endOfSealedSk(holding?.sk), 'the block holding 10 050 ends in page 0').toBeLessThan(PAGE_IDS);
      expect(queries).toBeGreaterThan(2);
    });

    it('redoes a term whose tail listed a block that another writer split before it read that block', async () => {
      const writer = createPostingWriter({ ...table, blockCapacity: 3 });
      // Blocks (0, P + 20], spanning pages 0 and 1, and (P + 20, P + 50], both listed by the tail (blocks of three:
      // it lists two at most); P + 60 in the tail.
      const P = PAGE_IDS;
      for (const id of [10_020, P + 10, P + 20, P + 30, P + 40, P + 50, P + 60])
        await writer.add([posting(id)]);
      // An edit adds the term to 10 050 and P + 45, far apart: each id's block is read alone, from the page the tail's
      // directory says it ends in (page 1 for both). Before those reads another writer splits 10 050's block, so
      // the block the writer finds in page 1 starts above 10 050, and the directory it read is out of date.
      let queries = 0;
      const racing = intercepting(table.client, async (command, send) => {
        if (!(command instanceof QueryCommand)) return send(command);
        queries++;
        if (queries === 1) await writer.add([posting(10_060), posting(10_070)]);
        return send(command);
      });
      await createPostingWriter({ client: racing, tableName: table.tableName, blockCapacity: 3 }).add([
        posting(10_050),
        posting(P + 45),
      ]);
      const after = await snapshot(table, 3);
      expect(after.postings.length).toBe(11);
      const holding = (await blocksOf(table, 'T#w')).find((block) => block.ids.includes(10_050));
      expect(endOfSealedSk(holding?.sk), 'the block holding 10 050 ends in page 0').toBeLessThan(PAGE_IDS);
      expect(queries).toBeGreaterThan(2);
    });

    it('hands the ids of emptied blocks to the block above them, across directory pages', async () => {
      const writer = createPostingWriter({ ...table, blockCapacity: 3 });
      const ids = [1, 2, 3, PAGE_IDS + 1, PAGE_IDS + 2, PAGE_IDS + 3, 2 * PAGE_IDS + 1, 2 * PAGE_IDS + 2];
      const more = [3 * PAGE_IDS, 3 * PAGE_IDS + 1, 3 * PAGE_IDS + 2, 3 * PAGE_IDS + 3, 4 * PAGE_IDS];
      for (const id of [...ids, ...more]) await writer.add([posting(id)]);
      // Blocks ending at 3, P + 3, 3P and 3P + 3 (in pages 0, 1, 3 and 3), and the tail.
      const sks = async () => (await blocksOf(table, 'T#w')).map((block) => block.sk);
      expect((await sks()).length).toBe(5);
      // The first two blocks (pages 0 and 1) empty at once: the block ending at 3P then covers (0, 3P].
      expect(await writer.remove(ids.slice(0, 6).map((id) => posting(id)))).toBe(6);
      await snapshot(table, 3);
      expect((await sks()).length).toBe(3);
      // An id below them all now lands in that block, which splits: 5 and 2P + 1, then 2P + 2 and 3P.
      await writer.add([posting(5)]);
      const after = await snapshot(table, 3);
      expect(after.postings.length).toBe(8);
      expect((await blocksOf(table, 'T#w')).map((block) => block.ids)).toStrictEqual([
        [5, 2 * PAGE_IDS + 1],
        [2 * PAGE_IDS + 2, 3 * PAGE_IDS],
        [3 * PAGE_IDS + 1, 3 * PAGE_IDS + 2, 3 * PAGE_IDS + 3],
        [4 * PAGE_IDS],
      ]);
    });

    it("reads the blocks that cover an edit's ids, not every block above them", async () => {
      const writer = createPostingWriter({ ...table, blockCapacity: 3 });
      // 30 blocks of three, ends 3, 6, …, 90, and 91 in the tail.
      await writer.add(Array.from({ length: 91 }, (_, i) => posting(i + 1)));
      let blocksRead = 0;
      const counting = intercepting(table.client, async (command, send) => {
        const reply = (await send(command)) as { Items?: unknown[] };
        if (command instanceof QueryCommand) blocksRead += reply.Items?.length ?? 0;
        return reply;
      });
      const editing = createPostingWriter({ client: counting, tableName: table.tableName, blockCapacity: 3 });
      // One id: the block from it up (Limit 1).
      expect(await editing.remove([posting(2)])).toBe(1);
      expect(blocksRead).toBe(1);
      // Ids close together: the blocks ending between them (6), and the first from the last up (9).
      blocksRead = 0;
      expect(await editing.add([posting(5, 2), posting(7, 2)])).toBe(0);
      expect(blocksRead).toBeLessThanOrEqual(2);
      const after = await snapshot(table, 3);
      expect(after.postings.length).toBe(90);
      expect(after.postings.filter((p) => p.split(':')[2] === '2')).toStrictEqual(['w:5:2:10', 'w:7:2:10']);
    });

    it("starts reading an id's block at the page the tail's directory lists for it", async () => {
      const writer = createPostingWriter({ ...table, blockCapacity: 3 });
      // A sparse term: its one sealed block (0, 4P + 2] ends in page 4, listed by the tail; 4P + 3 in the tail.
      const P = PAGE_IDS;
      for (const id of [10, 4 * P + 1, 4 * P + 2, 4 * P + 3]) await writer.add([posting(id)]);
      expect((await blocksOf(table, 'T#w')).map((block) => block.ids)).toStrictEqual([
        [10, 4 * P + 1, 4 * P + 2],
        [4 * P + 3],
      ]);
      let queries = 0;
      const counting = intercepting(table.client, async (command, send) => {
        if (command instanceof QueryCommand) queries++;
        return send(command);
      });
      // An edit of item 10 reads page 4 alone, not pages 0 to 4 one after the other.
      const editing = createPostingWriter({ client: counting, tableName: table.tableName, blockCapacity: 3 });
      expect(await editing.remove([posting(10)])).toBe(1);
      expect(queries).toBe(1);
      expect((await snapshot(table, 3)).postings).toStrictEqual([
        `w:${4 * P + 1}:1:10`,
        `w:${4 * P + 2}:1:10`,
        `w:${4 * P + 3}:1:10`,
      ]);
    });

    it('empties a run of blocks too long for one transaction in several, each leaving the blocks a partition', async () => {
      const writer = createPostingWriter({ ...table, blockCapacity: 3 });
      // 60 blocks of three, ends 3, 6, …, 180, and 181 in the tail.
      await writer.add(Array.from({ length: 181 }, (_, i) => posting(i + 1)));
      expect((await blocksOf(table, 'T#w')).length).toBe(61);
      // The first 58 empty at once: 58 deletes and their directory entries do not fit in 100 actions.
      // The table is checked after each of them (snapshot: every block's ids within its `after` and end).
      let transactions = 0;
      const counting = intercepting(table.client, async (command, send) => {
        const reply = await send(command);
        if (command instanceof TransactWriteCommand) {
          transactions++;
          await snapshot(table, 3);
        }
        return reply;
      });
      const removed = Array.from({ length: 58 * 3 }, (_, i) => posting(i + 1));
      const emptying = createPostingWriter({
        client: counting,
        tableName: table.tableName,
        blockCapacity: 3,
      });
      expect(await emptying.remove(removed)).toBe(174);
      expect(transactions).toBeGreaterThan(1);
      await snapshot(table, 3);
      expect((await blocksOf(table, 'T#w')).map((block) => block.ids)).toStrictEqual([
        [175, 176, 177],
        [178, 179, 180],
        [181],
      ]);
    });

    it('redoes a term whose tail another writer sealed after it read it', async () => {
      const writer = createPostingWriter({ ...table, blockCapacity: 3 });
      await writer.add([posting(1), posting(2), posting(3)]);
      let stale = 0;
      const late = intercepting(table.client, async (command, send) => {
        if (!(command instanceof BatchGetCommand) || stale > 0) return send(command);
        stale++;
        // The tail is read (three postings, nothing sealed); the other writer's append seals it; the read returns.
        const reply = await send(command);
        await writer.add([posting(4)]);
        return reply;
      });
      await createPostingWriter({ client: late, tableName: table.tableName, blockCapacity: 3 }).add([
        posting(5),
        posting(2, 3),
      ]);
      expect(stale).toBe(1);
      const after = await snapshot(table, 3);
      expect(after.postings).toStrictEqual(['w:1:1:10', 'w:2:3:10', 'w:3:1:10', 'w:4:1:10', 'w:5:1:10']);
      expect(after.df).toStrictEqual({ w: 5 });
    });

    // Four stems, each also the stem of a word with an exact form (`booting`: `boot` and `=booting`), so every item
    // writes home records (keys.ts homeOf) that other items' stems and forms share.
    const WORDS = ['boot', 'booting', 'trail', 'trailing', 'camp', 'camping', 'rain', 'raining'];
    /** Item `i`: a few shared words, repeated differently, so impacts (and so keys) differ between items. */
    const describe_ = (i: number, shift = 0) => ({
      name: `${WORDS[(i + shift) % WORDS.length]} ${WORDS[(i * 3 + shift) % WORDS.length]}`,
      description: Array.from(
        { length: 2 + ((i + shift) % 5) },
        (_, j) => WORDS[(i + j * j + shift) % 8],
      ).join(' '),
      tags: [],
      attributes: {},
    });

    // INDEX_REPEATS=199 runs it 200 times in a row (README, Tests): its interleavings differ on every run.
    // With writes a request (as on AWS) and in transactions of up to 50 (the local stack's), groups that race.
    it.for([1, 50])(
      'keeps the index exact while many items are indexed, changed and deleted concurrently (%i writes a transaction)',
      {
        timeout: 300_000,
        repeats: Number(process.env.INDEX_REPEATS ?? 0),
      },
      async (writesPerTransaction) => {
        const indexer = createIndexer({ ...table, items, blockCapacity: 3, writesPerTransaction });
        const created = await Promise.all(Array.from({ length: 24 }, (_, i) => items.create(describe_(i))));
        await Promise.all(created.map((item) => indexer.reindexItem(item.id)));
        const built = await snapshot(table, 3);
        expect(built).toMatchObject(expected(created));
        // Several blocks a term: splits happened (24 items share 8 words).
        expect(built.postings.length).toBeGreaterThan(24 * 3);

        const changed = await Promise.all(
          created
            .filter((_, i) => i % 3 === 0)
            .map((item) => items.update(item.id, () => describe_(item.id, 5))),
        );
        const deleted = created.filter((_, i) => i % 3 === 1);
        await Promise.all(deleted.map((item) => items.delete(item.id)));
        // Overlapping batches at once (as the stream consumer and `npm run reindex` may run), and single items.
        const ids = created.map((item) => item.id);
        // A writer that compacts the shrunk set as soon as it holds two entries (items that shrank).
        const compacting = () =>
          createIndexer({ ...table, items, blockCapacity: 3, compactAt: 2, writesPerTransaction });
        await Promise.all([
          indexer.reindexItems(ids),
          // Compacting writers beside the others.
          compacting().reindexItems(ids.filter((id) => id % 2 === 0)),
          compacting().reindexItems(ids.toReversed()),
          ...created.map((item) => indexer.reindexItem(item.id)),
        ]);
        const kept = [...changed, ...created.filter((_, i) => i % 3 === 2)];
        expect(await snapshot(table, 3)).toMatchObject(expected(kept));

        // Everything gone: every block is deleted with its last posting.
        await Promise.all(kept.map((item) => items.delete(item.id)));
        await Promise.all(created.map((item) => indexer.reindexItem(item.id)));
        expect(await snapshot(table, 3)).toStrictEqual({
          postings: [],
          df: {},
          stats: { docs: 0, len: 0 },
          docs: [],
        });
        // A long loop's progress: one line per run that passed (INDEX_REPEATS_LOG names the file).
        if (process.env.INDEX_REPEATS_LOG)
          appendFileSync(process.env.INDEX_REPEATS_LOG, `${new Date().toISOString()} passed\n`);
      },
    );

    it.for([1, 50])(
      'converges after a crash at any step of a batch that splits and empties blocks (%i writes a transaction)',
      { timeout: 120_000 },
      async (writesPerTransaction) => {
        // Set up once: seven items indexed one by one, then a batch of two items changed, one deleted, one new.
        const start = await freshTable();
        const setup = createItemRepository(start);
        const indexed = [];
        for (let i = 0; i < 7; i++) indexed.push(await setup.create(describe_(i)));
        for (const item of indexed)
          await createIndexer({ ...start, items: setup, blockCapacity: 3 }).reindexItem(item.id);
        const [first, second, gone, ...rest] = indexed as [Item, Item, Item, ...Item[]];
        const changed = [
          await setup.update(first.id, () => describe_(first.id, 3)),
          await setup.update(second.id, () => describe_(second.id, 6)),
        ];
        await setup.delete(gone.id);
        const fresh = await setup.create(describe_(11));
        const batch = [first.id, second.id, gone.id, fresh.id];
        let crashes = 0;
        for (let failAt = 1; failAt < 200; failAt++) {
          const t = await copyOf(start);
          const repo = createItemRepository(t);
          const crashed = await createIndexer({
            client: crashingClient(t, failAt),
            tableName: t.tableName,
            items: repo,
            blockCapacity: 3,
            writesPerTransaction,
          })
            .reindexItems(batch)
            .then(
              () => false,
              () => true,
            );
          await later({ ...t, items: repo, blockCapacity: 3 }).reindexItems(batch);
          expect(await snapshot(t, 3), `crash at call ${failAt}`).toMatchObject(
            expected([...changed, ...rest, fresh]),
          );
          if (!crashed) break;
          crashes++;
        }
        expect(crashes).toBeGreaterThan(5);
      },
    );
  });

  it('npm run reindex removes postings no doc record accounts for, with their df, and repairs the counts', async () => {
    const indexer = createIndexer({ ...table, items });
    const kept = await items.create(text);
    const stray = await items.create({ ...text, name: 'Stray Lantern' });
    await indexer.reindexItem(kept.id);
    await indexer.reindexItem(stray.id);
    // A manual edit: the item and its doc record are gone, its postings and the corpus counts are left.
    await items.delete(stray.id);
    await table.client.send(new DeleteCommand({ TableName: table.tableName, Key: docKey(stray.id) }));
    const report = await rebuildIndex({ ...table, indexer });
    expect(report).toMatchObject({ strayPostings: Object.keys(analyze(stray).terms).length, removed: 0 });
    expect(await snapshot(table)).toMatchObject(expected([kept]));
  });

  it('npm run reindex never writes counts from a scan that writers changed, and repairs them once they are quiet (regression)', async () => {
    const indexer = createIndexer({ ...table, items });
    const all: Item[] = [];
    for (let i = 0; i < 12; i++) all.push(await items.create({ ...text, name: `Boot ${i}` }));
    await indexer.reindexItems(all.map((item) => item.id));
    // Drift to repair: N counts seven items too many.
    await drift(3, 'docs', 7);
    const gone = new Set<number>();
    /** What the stream consumer does beside the reindex: an item deleted and its deletion indexed. */
    const churn = async () => {
      const item = all.find((candidate) => !gone.has(candidate.id));
      if (!item) throw new Error('nothing left to delete');
      gone.add(item.id);
      await items.delete(item.id);
      await indexer.reindexItem(item.id);
    };
    const events: string[] = [];
    const racing = intercepting(table.client, async (command, send) => {
      const reply = await send(command);
      // Writers commit right after the reindex's scan of the index and right after it reads the counts (the
      // first of the counts partitions' Queries, which go side by side).
      if (
        command instanceof ScanCommand &&
        !(reply as unknown as { LastEvaluatedKey?: unknown }).LastEvaluatedKey
      ) {
        events.push('scan');
        if (events.filter((event) => event === 'scan').length === 1) await churn();
      }
      if (
        command instanceof QueryCommand &&
        command.input.ExpressionAttributeValues?.[':pk'] === statsKey(0).pk
      ) {
        events.push('counts');
        if (events.filter((event) => event === 'counts').length === 1) await churn();
      }
      return reply;
    });
    const first = await rebuildIndex({ client: racing, tableName: table.tableName, indexer });
    expect(first).toMatchObject({ repairedCounts: 0, countsSkipped: 1 });
    expect(events).toStrictEqual(['scan', 'counts', 'scan']);
    const live = all.filter((item) => !gone.has(item.id));
    // Postings and df exact; N still off by the drift it had, not by what the scan saw.
    const drifted = await snapshot(table);
    expect(drifted).toMatchObject({
      ...expected(live),
      stats: { ...expected(live).stats, docs: live.length + 7 },
    });
    const second = await rebuildIndex({ ...table, indexer });
    expect(second).toMatchObject({ repairedCounts: 1, countsSkipped: 0 });
    expect(await snapshot(table)).toMatchObject(expected(live));
  }, 120_000);

  it('npm run reindex repairs the count of shrunk-set entries where it drifted (a query reads the set by it)', async () => {
    const indexer = createIndexer({ ...table, items });
    const item = await items.create({ ...text, name: 'Drift Boot' });
    await indexer.reindexItem(item.id);
    await drift(5, 'shrunk', 2);
    await expect(snapshot(table)).rejects.toThrow(/shrunk-set entries/);
    expect(await rebuildIndex({ ...table, indexer })).toMatchObject({ repairedCounts: 1, countsSkipped: 0 });
    expect(await snapshot(table)).toMatchObject(expected([item]));
  });

  it('npm run reindex rebuilds from the items and removes deleted ones', async () => {
    const indexer = createIndexer({ ...table, items });
    const kept = await items.create(text);
    const gone = await items.create({ ...text, name: 'Gone Boot' });
    await indexer.reindexItem(gone.id);
    await items.delete(gone.id);
    const report = await rebuildIndex({ ...table, indexer });
    expect(report).toMatchObject({ items: 1, removed: 1, strayPostings: 0 });
    expect(await snapshot(table)).toMatchObject(expected([kept]));
  });
});
