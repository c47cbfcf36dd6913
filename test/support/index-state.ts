import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import type { Item } from '../../lib/items/schema.ts';
import { BLOCK_CAPACITY, decodeBlock } from '../../lib/search/format/blocks.ts';
import { idOfKey } from '../../lib/search/format/keys.ts';
import { analyze, createIndexer } from '../../lib/search/write/indexer.ts';
import type { freshTable } from './stack.ts';

// What the index holds, checked against its invariants and against an index computed from the items alone: shared
// by the indexer's tests and its model-based test.

export type Table = Awaited<ReturnType<typeof freshTable>>;

/**
 * The block layout's invariants: each term's blocks are non-empty (but the last block of a split term, which says
 * it is split) and within capacity, and each holds exactly keys after the previous block's end up to its own end
 * (the last one, B#~, everything after).
 */
export function checkBlocks(blocks: Record<string, unknown>[], capacity: number) {
  const byTerm = Map.groupBy(blocks, (r) => String(r.pk));
  for (const [pk, list] of byTerm) {
    const sorted = list.map((r) => String(r.sk)).sort();
    let previous = '';
    for (const sk of sorted) {
      const block = list.find((r) => r.sk === sk);
      const keys = decodeBlock(String(block?.p)).map((p) => p.key);
      if (sk === 'B#~' && block?.s === 1 && keys.length === 0) continue;
      expect(keys.length, `${pk} ${sk} size`).toBeGreaterThan(0);
      expect(keys.length, `${pk} ${sk} size`).toBeLessThanOrEqual(capacity);
      expect((keys[0] ?? '') > previous, `${pk} ${sk} starts after the previous block`).toBe(true);
      const end = sk.slice(2);
      // A block ends at its last key when written; removing that posting leaves the end where it was.
      if (end !== '~') expect((keys.at(-1) ?? '') <= end, `${pk} ${sk} ends by its end key`).toBe(true);
      previous = end;
    }
  }
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
  const rows = await scanAll(table);
  const blocks = rows.filter((r) => String(r.pk).startsWith('T#') && String(r.sk).startsWith('B#'));
  checkBlocks(blocks, capacity);
  const postings = blocks
    .flatMap((r) =>
      decodeBlock(String(r.p)).map((p) => `${String(r.pk).slice(2)}:${idOfKey(p.key)}:${p.tf}:${p.dl}`),
    )
    .sort();
  // df: the DF record where the term has one (it must equal the posting count), else the count itself; a term
  // without a DF record has one block at most.
  const counts = new Map<string, number>();
  for (const posting of postings) {
    const term = posting.slice(0, posting.indexOf(':'));
    counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  const recorded = new Map(rows.filter((r) => r.sk === 'DF').map((r) => [String(r.pk).slice(2), r.df]));
  for (const [term, df] of recorded) expect(df, `df of ${term}`).toBe(counts.get(term) ?? 0);
  for (const [pk, list] of Map.groupBy(blocks, (r) => String(r.pk)))
    if (!recorded.has(pk.slice(2))) expect(list.length, `${pk} has no DF record`).toBe(1);
  const df = Object.fromEntries(counts);
  const stats = rows.find((r) => r.pk === 'STATS');
  const docs = rows
    .filter((r) => String(r.pk).startsWith('D#'))
    .map((r) => ({ id: r.pk, pending: r.pending ?? [] }));
  return { postings, df, stats: { docs: stats?.docs ?? 0, len: stats?.len ?? 0 }, docs };
}

/** A term's blocks in order, with their keys. */
export async function blocksOf({ client, tableName }: Table, pk: string) {
  const page = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :b)',
      ExpressionAttributeValues: { ':pk': pk, ':b': 'B#' },
      ConsistentRead: true,
    }),
  );
  return (page.Items ?? []).map((r) => ({
    sk: String(r.sk),
    keys: decodeBlock(String(r.p)).map((p) => p.key),
  }));
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

/** A real client that stops at its `failAt`-th call, as a crashed Lambda would: that call and every later one throw. */
export function crashingClient(table: Table, failAt: number): DynamoDBDocumentClient {
  let calls = 0;
  const send = table.client.send.bind(table.client);
  return new Proxy(table.client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (...args: Parameters<typeof send>) => {
        calls++;
        if (calls >= failAt) return Promise.reject(new Error('simulated crash'));
        return send(...args);
      };
    },
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
  const send = client.send.bind(client);
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.floor(random() * ms)));
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (...args: Parameters<typeof send>) => {
        const [command] = args;
        await pause(4);
        if (!(command instanceof BatchGetCommand)) return send(...args);
        const request = command.input.RequestItems ?? {};
        const [tableName, { Keys = [], ...rest } = {}] = Object.entries(request)[0] ?? [];
        if (!tableName || Keys.length < 2) return send(...args);
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
      };
    },
  });
}
