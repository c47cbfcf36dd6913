import { BatchGetCommand, type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { expect } from 'vitest';
import type { Item } from '../../lib/items/schema.ts';
import { leaseIds } from '../../lib/items/writer.ts';
import {
  BLOCK_CAPACITY,
  blockMax,
  decodeBlock,
  decodeDirectory,
  tailDirectoryLimit,
} from '../../lib/search/format/blocks.ts';
import {
  DF_CLASS_ATTRIBUTE,
  dfClass,
  endOfPageEntry,
  endOfSealedSk,
  idOfDocKey,
  isDictionaryTerm,
  pageEntry,
  pageSk,
  STATS_PK,
  sealedPk,
  shrunkOf,
  sumCounts,
  TAIL_SK,
  termOfPk,
  termRows,
} from '../../lib/search/format/keys.ts';
import { StoredChange } from '../../lib/search/format/terms.ts';
import { analyze, createIndexer } from '../../lib/search/write/indexer.ts';
import type { freshTable } from './stack.ts';

// What the index holds, checked against its invariants and against an index computed from the items alone: shared
// by the indexer's tests and its model-based test.

export type Table = Awaited<ReturnType<typeof freshTable>>;

/**
 * The layout's invariants (lib/search/format/keys.ts), term by term: sealed blocks within capacity, each holding ids
 * after the previous block's end up to its own end (a block emptied while it ended at the tail's `lo` is kept, and
 * stays, empty, when later seals move `lo` past it: it still covers its range); the tail's
 * ids above `lo` and within capacity; its df the term's posting count, a term with postings in the dictionary with
 * its df class (or none, after a removal from a sealed block), an exact form never;
 * the directory listing exactly the sealed blocks, in their pages, each entry at or above its block's impacts, as
 * the tail's `m` is above its own; a tail that lists the directory too (`d`) listing exactly what the pages hold, and
 * no more blocks than its limit.
 */
export function checkTerms(rows: Record<string, unknown>[], capacity: number) {
  const termRows = rows.filter((r) => String(r.pk).startsWith('T#'));
  for (const [pk, list] of Map.groupBy(termRows, (r) => `T#${termOfPk(r.pk)}`)) {
    const tail = list.find((r) => r.sk === TAIL_SK);
    const sealed = list
      .filter((r) => endOfSealedSk(r.sk) !== undefined)
      .sort((a, b) => (endOfSealedSk(a.sk) ?? 0) - (endOfSealedSk(b.sk) ?? 0));
    const pages = list.filter((r) => String(r.sk).startsWith('X#'));
    expect(
      list.every((r) => r === tail || sealed.includes(r) || pages.includes(r)),
      `${pk} has only tail, blocks and pages`,
    ).toBe(true);
    const lo = Number(tail?.lo ?? 0);
    let previous = 0;
    let count = 0;
    for (const block of sealed) {
      const end = endOfSealedSk(block.sk) ?? 0;
      const postings = decodeBlock(block.p);
      count += postings.length;
      expect(postings.length, `${pk} ${block.sk} size`).toBeLessThanOrEqual(capacity);
      expect(block.pk, `${block.sk}'s key is its page's`).toBe(sealedPk(termOfPk(pk) ?? '', end));
      expect(block.a, `${pk} ${block.sk} after the block before it`).toBe(previous);
      for (const p of postings)
        expect(p.id > previous && p.id <= end, `${pk} ${block.sk} holds ${p.id}`).toBe(true);
      expect(Number(block.m), `${pk} ${block.sk} m`).toBeGreaterThanOrEqual(blockMax(postings));
      const page = pages.find((r) => r.sk === pageSk(end));
      expect(page?.[pageEntry(end)], `${pk} directory entry of ${block.sk}`).toBe(block.m);
      previous = end;
    }
    if (sealed.length > 0) expect(previous, `${pk} last sealed block ends at lo`).toBe(lo);
    const entries = pages.flatMap((page) =>
      Object.keys(page).flatMap((name) => (endOfPageEntry(name) === undefined ? [] : [endOfPageEntry(name)])),
    );
    expect(entries.length, `${pk} directory entries`).toBe(sealed.length);
    if (tail?.d !== undefined) {
      const listed = tail.d instanceof Uint8Array ? decodeDirectory(tail.d) : tail.d;
      expect(listed, `${pk} directory the tail lists`).toStrictEqual(
        sealed.map((block) => [endOfSealedSk(block.sk), Number(block.m)]),
      );
      expect(sealed.length, `${pk} blocks its tail lists`).toBeLessThanOrEqual(tailDirectoryLimit(capacity));
      expect(sealed.length, `${pk} a tail lists a directory only of sealed blocks`).toBeGreaterThan(0);
    }
    if (!tail) {
      expect(sealed.length, `${pk} has blocks but no tail`).toBe(0);
      continue;
    }
    const postings = decodeBlock(tail.p);
    count += postings.length;
    expect(postings.length, `${pk} tail size`).toBeLessThanOrEqual(capacity);
    for (const p of postings) expect(p.id > lo, `${pk} tail holds ${p.id} above lo`).toBe(true);
    expect(Number(tail.m), `${pk} tail m`).toBeGreaterThanOrEqual(blockMax(postings));
    expect(tail.df, `df of ${pk}`).toBe(count);
    const term = termOfPk(pk) ?? '';
    if (count > 0 && isDictionaryTerm(term)) {
      expect(tail.wt, `${pk} in the dictionary`).toBe(term);
      // Its df class, unless a removal from a sealed block took it away (a reader then reads the df).
      if (tail[DF_CLASS_ATTRIBUTE] !== undefined)
        expect(tail[DF_CLASS_ATTRIBUTE], `${pk} df class`).toBe(dfClass(count));
    }
    if (!isDictionaryTerm(term))
      expect(tail.wt, `${pk}, an exact form, is no dictionary term`).toBeUndefined();
  }
}

/** Moves the id counter on by `gap`, as a container does that leases ids and dies before using them. */
export async function skipIds(table: Table, gap: number) {
  await leaseIds(table)(gap);
}

/** Every record of the table (a consistent scan). */
export async function scanAll({ client, tableName }: Table): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey, ConsistentRead: true }),
    );
    rows.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return rows;
}

/** Everything the index holds, as comparable plain data. */
export async function snapshot(table: Table, capacity = BLOCK_CAPACITY) {
  // A home record as a row a term: its stem's tail and each of its forms' (keys.ts `termRows`).
  const rows = (await scanAll(table)).flatMap(termRows);
  checkTerms(rows, capacity);
  const blocks = rows.filter((r) => String(r.pk).startsWith('T#') && String(r.sk).startsWith('K#'));
  // Each doc record's length, norm and cut (none: empty), the
  // norm above the length or a cut only for an item of the shrunk set, whose entry holds the three (keys.ts); every
  // entry is of such an item.
  const shrunk = new Map(shrunkOf(rows).map((entry) => [entry.id, entry]));
  const committed = new Map(
    rows.flatMap((r) => {
      const id = idOfDocKey(r.pk, r.sk);
      if (id === undefined) return [];
      const cut = r.cut === undefined ? {} : v.parse(StoredChange, r.cut);
      const record = { dl: Number(r.dl), norm: Number(r.norm), cut };
      if (record.norm > record.dl || Object.keys(cut).length > 0)
        expect(shrunk.get(id), `D#${id}'s shrunk-set entry`).toEqual({ id, ...record });
      return [[id, record] as const];
    }),
  );
  for (const entry of shrunk.values()) {
    const record = committed.get(entry.id);
    expect(
      record !== undefined && (record.norm > record.dl || Object.keys(record.cut).length > 0),
      `the shrunk-set entry of ${entry.id} is of a shrunk item`,
    ).toBe(true);
  }
  // A posting carries a length at most its item's norm (the item's length when it was created, kept by edits that
  // stay within the norm's window, an eighth short once an edit rewrote it: target.ts `postingTarget`); it is listed
  // with the committed length, the one its item is scored with. A posting of a term in its item's cut carries a tf
  // above the cut's, and is listed with the cut's, or not at all for a ghost (0), as the reader scores it. A posting
  // longer than its item's norm, or of an item without a doc record, is listed as stored: no expected index has it.
  const ghosts = new Map<string, number>();
  const seen = new Set<string>();
  const postings = blocks
    .flatMap((r) =>
      decodeBlock(r.p).flatMap((p) => {
        const term = termOfPk(r.pk) ?? '';
        const record = committed.get(p.id);
        const dl = record && p.dl <= record.norm ? record.dl : p.dl;
        const cut = record && Object.hasOwn(record.cut, term) ? record.cut[term] : undefined;
        if (cut === undefined) return [`${term}:${p.id}:${p.tf}:${dl}`];
        seen.add(`${term}:${p.id}`);
        expect(cut, `the cut of ${term} in D#${p.id}, below its posting's tf`).toBeLessThan(p.tf);
        if (cut > 0) return [`${term}:${p.id}:${cut}:${dl}`];
        ghosts.set(term, (ghosts.get(term) ?? 0) + 1);
        return [];
      }),
    )
    .sort();
  // Every term of a cut has its item's posting.
  for (const [id, record] of committed)
    for (const term of Object.keys(record.cut))
      expect(seen.has(`${term}:${id}`), `D#${id}'s cut of ${term} is of a posting`).toBe(true);
  // df: each tail's (checkTerms: equal to its term's posting count) less its ghosts, for the terms that have postings.
  const df = Object.fromEntries(
    rows
      .filter((r) => r.sk === TAIL_SK)
      .map((r) => [termOfPk(r.pk) ?? '', Number(r.df) - (ghosts.get(termOfPk(r.pk) ?? '') ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );
  // The counts' parts (keys.ts), summed.
  const stats = sumCounts(rows.filter((r) => r.pk === STATS_PK && String(r.sk).startsWith('INDEX')));
  // The counts' count of shrunk-set entries is the set's (a query reads the set only while it is not 0).
  expect(stats.shrunkEntries, 'the counts’ shrunk-set entries').toBe(shrunkOf(rows).length);
  const docs = rows
    .filter((r) => idOfDocKey(r.pk, r.sk) !== undefined)
    .map((r) => ({ id: r.pk, pending: r.pending ?? [] }));
  return { postings, df, stats: { docs: stats.docs, len: stats.len }, docs };
}

/** A term's blocks in order (sealed, then the tail), with their ids: its tail's key and its blocks' (`T#<term>#<page>`). */
export async function blocksOf(table: Table, pk: string) {
  const rows = (await scanAll(table)).filter(
    (r) => (r.pk === pk || String(r.pk).startsWith(`${pk}#`)) && String(r.sk).startsWith('K#'),
  );
  return rows
    .sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1))
    .map((r) => ({ sk: String(r.sk), ids: decodeBlock(r.p).map((p) => p.id) }));
}

/** The index a from-scratch build of `items` must give, computed independently of the table. */
export function expected(items: Item[]) {
  const postings: string[] = [];
  // A null-prototype object: `constructor` is an indexable word too.
  const df: Record<string, number> = Object.create(null);
  let len = 0;
  for (const item of items) {
    const { dl, terms } = analyze(item);
    len += dl;
    for (const [term, tf] of Object.entries(terms)) {
      postings.push(`${term}:${item.id}:${tf}:${dl}`);
      df[term] = (Object.hasOwn(df, term) ? (df[term] ?? 0) : 0) + 1;
    }
  }
  return { postings: postings.sort(), df: { ...df }, stats: { docs: items.length, len } };
}

/** The real client with every `send` made through `around`, which is handed the command and the real send. */
export function intercepting(
  client: DynamoDBDocumentClient,
  around: (
    command: Parameters<DynamoDBDocumentClient['send']>[0],
    send: DynamoDBDocumentClient['send'],
  ) => Promise<unknown>,
): DynamoDBDocumentClient {
  const send = client.send.bind(client) as DynamoDBDocumentClient['send'];
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: Parameters<typeof send>[0]) => around(command, send);
    },
  });
}

/** A real client that stops at its `failAt`-th call, as a crashed Lambda would: that call and every later one throw. */
export function crashingClient(table: Table, failAt: number): DynamoDBDocumentClient {
  let calls = 0;
  return intercepting(table.client, async (command, send) => {
    calls++;
    if (calls >= failAt) return Promise.reject(new Error('simulated crash'));
    return send(command);
  });
}

/** An indexer whose clock is ten minutes ahead: the leases of writers that died before it have run out. */
export const later = (options: Parameters<typeof createIndexer>[0]) =>
  createIndexer({ ...options, now: () => Date.now() + 10 * 60_000 });

/**
 * A real client whose calls interleave as widely as DynamoDB allows: each call waits a random moment before it is
 * sent, and a BatchGetItem is read key by key, in a random order, with a pause between (BatchGetItem is no
 * snapshot: each key is read on its own), so races that need a torn read or a slow writer happen often instead of once in many runs.
 */
export function jitteringClient(
  client: DynamoDBDocumentClient,
  random: () => number,
): DynamoDBDocumentClient {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.floor(random() * ms)));
  return intercepting(client, async (command, send) => {
    await pause(4);
    if (!(command instanceof BatchGetCommand)) return send(command);
    const request = command.input.RequestItems ?? {};
    const [tableName, { Keys = [], ...rest } = {}] = Object.entries(request)[0] ?? [];
    if (!tableName || Keys.length < 2) return send(command);
    const found: Record<string, unknown>[] = [];
    const shuffled = Keys.map((key) => ({ key, order: random() }))
      .sort((a, b) => a.order - b.order)
      .map(({ key }) => key);
    for (const key of shuffled) {
      const reply = await send(
        new BatchGetCommand({ RequestItems: { [tableName]: { ...rest, Keys: [key] } } }),
      );
      found.push(...(reply.Responses?.[tableName] ?? []));
      await pause(12);
    }
    return { Responses: { [tableName]: found }, UnprocessedKeys: {}, $metadata: {} };
  });
}
