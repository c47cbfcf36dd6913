// Issue #6, part 3: concurrency and atomicity over HTTP. Parallel creates, replaces, patches and deletes on a
// few items, with and without If-Match. Every write changes something (each patch adds its own attribute key,
// each replace sets its own name), so each acknowledged write's version says where it falls in the serial
// order, and the check is exact: replaying the acknowledged writes in version order must give every response
// and the final item; versions are 2..n+1 without gaps; deleted ids stay gone; the search index agrees.
// Rounds: HARDENING_ROUNDS (default 1).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  envCount,
  eventually,
  expectItem,
  httpClient,
  listUpTo,
  pool,
  type Reply,
} from '../../hardening/http.ts';
import { stack, tokenFor } from '../../support/stack.ts';

const ROUNDS = envCount('HARDENING_ROUNDS', 1);
const IN_FLIGHT = 6;
const request = httpClient(stack.baseUrl);
const editor = tokenFor('editor');
const admin = tokenFor('admin');
const reader = tokenFor('reader');

type AttributeValue = string | number | boolean;
interface Item {
  id: number;
  name: string;
  description: string;
  tags: string[];
  attributes: Record<string, AttributeValue>;
  createdAt: string;
  updatedAt: string;
  version: number;
}

/** A word no other item contains, that the tokenizer keeps whole (letters and digits: never stemmed). */
const uniqueWord = () => `q7${randomBytes(6).toString('hex')}`;

type Write =
  | { kind: 'patch'; key: string; value: number; ifMatch?: number }
  | { kind: 'replace'; word: string; n: number; ifMatch?: number }
  | { kind: 'delete'; ifMatch?: number };

interface Done {
  write: Write;
  reply: Reply;
}

const ifMatchHeader = (write: Write) =>
  write.ifMatch === undefined ? {} : { 'if-match': `"${write.ifMatch}"` };

function send(id: number, write: Write): Promise<Reply> {
  const headers = ifMatchHeader(write);
  if (write.kind === 'patch') {
    return request('PATCH', `/items/${id}`, {
      token: editor,
      headers,
      body: { attributes: { [write.key]: write.value } },
    });
  }
  if (write.kind === 'replace') {
    return request('PUT', `/items/${id}`, {
      token: editor,
      headers,
      body: { name: `conc ${write.word}`, description: `replace ${write.n}`, attributes: { r: write.n } },
    });
  }
  return request('DELETE', `/items/${id}`, { token: admin, headers });
}

/** The item after `write`, by the contract's rules (merge patch; replace resets left-out fields). */
function apply(item: Item, write: Write): Item {
  if (write.kind === 'patch')
    return { ...item, attributes: { ...item.attributes, [write.key]: write.value } };
  if (write.kind === 'replace') {
    return {
      ...item,
      name: `conc ${write.word}`,
      description: `replace ${write.n}`,
      tags: [],
      attributes: { r: write.n },
    };
  }
  return item;
}

const fieldsOf = ({ name, description, tags, attributes }: Item) => ({ name, description, tags, attributes });

/**
 * Warms several instances of each write function, so the workload does not wait on cold starts. Best effort:
 * it asserts nothing (the workload does), so a slow start here cannot fail the test by itself.
 */
async function warmUp() {
  const unknown = '/items/9000000000000001';
  for (const [method, token, body] of [
    ['PATCH', editor, { name: 'warm' }],
    ['PUT', editor, { name: 'warm' }],
    ['DELETE', admin, undefined],
    ['POST', editor, { name: '' }],
  ] as const) {
    const path = method === 'POST' ? '/items' : unknown;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, () =>
        request(method, path, { token, timeoutMs: 15_000, ...(body === undefined ? {} : { body }) }).catch(
          () => undefined,
        ),
      ),
    );
  }
}

async function retrieveIds(word: string): Promise<number[]> {
  const reply = await request('POST', '/retrieve', { token: reader, body: { query: word, topK: 10 } });
  expect(reply.status, reply.text).toBe(200);
  return (reply.body as { results: { item: { id: number } }[] }).results.map((r) => r.item.id);
}

async function round() {
  const targets: { item: Item; words: string[]; writes: Write[] }[] = [];
  for (let t = 0; t < 4; t++) {
    const word = uniqueWord();
    const created = await request('POST', '/items', {
      token: editor,
      body: { name: `conc ${word}`, tags: ['conc'] },
    });
    expect(created.status).toBe(201);
    const writes: Write[] = [];
    for (let i = 0; i < 8; i++) writes.push({ kind: 'patch', key: `p${i}`, value: i });
    for (let i = 0; i < 3; i++) writes.push({ kind: 'replace', word: uniqueWord(), n: i });
    for (let i = 0; i < 3; i++) writes.push({ kind: 'patch', key: `m${i}`, value: i, ifMatch: 2 + i * 2 });
    writes.push({ kind: 'replace', word: uniqueWord(), n: 9, ifMatch: 3 });
    // Item 2 is deleted unconditionally, item 3 only if it is still at a chosen version.
    if (t === 2) writes.push({ kind: 'delete' });
    if (t === 3) writes.push({ kind: 'delete', ifMatch: 4 + Math.floor(Math.random() * 4) });
    targets.push({ item: created.body as Item, words: [word], writes });
  }
  const createWords = Array.from({ length: 6 }, uniqueWord);

  type Task = () => Promise<{ target: number; done: Done } | { created: Reply; word: string }>;
  const tasks: Task[] = [
    ...targets.flatMap((target, index) =>
      target.writes.map(
        (write): Task =>
          async () => ({ target: index, done: { write, reply: await send(target.item.id, write) } }),
      ),
    ),
    ...createWords.map(
      (word): Task =>
        async () => ({
          created: await request('POST', '/items', { token: editor, body: { name: `conc ${word}` } }),
          word,
        }),
    ),
  ];
  for (let i = tasks.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [tasks[i], tasks[j]] = [tasks[j] as Task, tasks[i] as Task];
  }
  const outcomes = await pool(IN_FLIGHT, tasks);

  // Creates: all acknowledged, distinct ids, each stored as returned.
  const creates = outcomes.flatMap((o) => ('created' in o ? [o] : []));
  for (const { created } of creates) expect(created.status, created.text).toBe(201);
  const createdIds = creates.map(({ created }) => (created.body as Item).id);
  expect(new Set(createdIds).size).toBe(createdIds.length);

  const survivors: { item: Item; word: string; stale: string[] }[] = [];
  const gone: { id: number; words: string[] }[] = [];
  for (const [index, target] of targets.entries()) {
    const done = outcomes.flatMap((o) => ('target' in o && o.target === index ? [o.done] : []));
    const context = `item ${target.item.id}: ${JSON.stringify(done.map((d) => [d.write, d.reply.status]))}`;
    // Every reply is an acknowledgement or a refusal that changed nothing.
    for (const { write, reply } of done) {
      const allowed =
        write.kind === 'delete'
          ? [204, 404, ...(write.ifMatch === undefined ? [] : [412])]
          : [200, 404, 503, ...(write.ifMatch === undefined ? [] : [412])];
      expect(allowed, `${context}\n${reply.text}`).toContain(reply.status);
      if (reply.status === 503) expect(reply.headers.get('retry-after'), context).not.toBeNull();
    }
    const deleted = done.find((d) => d.write.kind === 'delete' && d.reply.status === 204);
    // 404 only once the item is gone.
    if (!deleted)
      expect(
        done.filter((d) => d.reply.status === 404),
        context,
      ).toStrictEqual([]);
    if (target.writes.some((w) => w.kind === 'delete' && w.ifMatch === undefined)) {
      expect(deleted, `${context}: the unconditional delete`).toBeDefined();
    }
    // Acknowledged writes, in the order their versions give; versions 2..n+1, no gaps, no duplicates.
    const acked = done
      .filter((d) => d.write.kind !== 'delete' && d.reply.status === 200)
      .sort((a, b) => (a.reply.body as Item).version - (b.reply.body as Item).version);
    expect(
      acked.map((d) => (d.reply.body as Item).version),
      context,
    ).toStrictEqual(acked.map((_, i) => i + 2));
    // Replaying them gives every acknowledged response, whole: no write lost or half-applied.
    let state: Item = target.item;
    for (const { write, reply } of acked) {
      state = apply(state, write);
      expectItem(reply.body, context);
      const body = reply.body as Item;
      expect({ ...fieldsOf(body), id: body.id, createdAt: body.createdAt }, context).toStrictEqual({
        ...fieldsOf(state),
        id: state.id,
        createdAt: state.createdAt,
      });
      state = body;
    }
    // A write acknowledged while the item existed cannot follow its delete; nothing after it is acknowledged
    // except refusals, so the acknowledged writes are all there is.
    const replaces = acked.filter((d) => d.write.kind === 'replace').map((d) => d.write);
    const finalWord =
      replaces.length > 0 ? (replaces.at(-1) as { word: string }).word : (target.words[0] ?? '');
    const allWords = [
      ...target.words,
      ...target.writes.flatMap((w) => (w.kind === 'replace' ? [w.word] : [])),
    ];
    const read = await request('GET', `/items/${target.item.id}`);
    if (deleted) {
      expect({ status: read.status, body: read.body }, context).toStrictEqual({
        status: 404,
        body: { error: 'Item not found' },
      });
      gone.push({ id: target.item.id, words: allWords });
    } else {
      expect({ status: read.status, body: read.body }, context).toStrictEqual({ status: 200, body: state });
      expect(state.version, context).toBe(1 + acked.length);
      survivors.push({ item: state, word: finalWord, stale: allWords.filter((w) => w !== finalWord) });
    }
  }

  // Listing: survivors as read, deleted ids absent, created items present.
  const highest = Math.max(...createdIds, ...targets.map((t) => t.item.id));
  const listed = new Map(((await listUpTo(request, highest)) as Item[]).map((item) => [item.id, item]));
  for (const { id } of gone) expect(listed.has(id), `deleted ${id} is listed`).toBe(false);
  for (const { item } of survivors) expect(listed.get(item.id)).toStrictEqual(item);
  for (const { created } of creates)
    expect(listed.get((created.body as Item).id)).toStrictEqual(created.body);

  // The search index agrees with the items (the contract allows 2 s; polled up to 5 s).
  const settle = (probe: () => Promise<boolean>) => eventually(probe, 5_000, 150);
  for (const { item, word, stale } of survivors) {
    expect(await settle(async () => (await retrieveIds(word)).join() === String(item.id)), word).toBe(true);
    for (const old of stale) {
      expect(
        await settle(async () => !(await retrieveIds(old)).includes(item.id)),
        `${old} of ${item.id}`,
      ).toBe(true);
    }
  }
  for (const { id, words } of gone) {
    for (const word of words) {
      expect(
        await settle(async () => (await retrieveIds(word)).length === 0),
        `${word} of deleted ${id}`,
      ).toBe(true);
    }
  }
  for (const { created, word } of creates) {
    const id = (created.body as Item).id;
    expect(await settle(async () => (await retrieveIds(word)).join() === String(id)), word).toBe(true);
  }
}

describe('concurrent writes over HTTP', () => {
  it(
    'leaves every item as some serial order of the acknowledged writes would, and the index in step',
    async () => {
      await warmUp();
      for (let r = 0; r < ROUNDS; r++) await round();
    },
    Math.max(60_000, ROUNDS * 40_000),
  );
});
