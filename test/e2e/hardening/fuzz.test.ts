// Issue #6, part 2: input fuzzing over HTTP for every endpoint. Bodies nest deeply, carry huge and overflowing
// number literals (`1e999`), odd Unicode (escaped lone surrogates, RTL and zero-width marks, emoji), prototype
// keys and wrong types. Property: never a 5xx; every 4xx the contract's error object; 400/413/422 exactly when
// an independent reading of the contract (test/hardening/model.ts) says so; every 2xx a whole, valid item
// that is what the request asked for. Afterwards every stored item is valid.
// Runs per endpoint: HARDENING_RUNS (default 150); reproduce a failure with the seed fast-check prints.
import { randomUUID } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { beforeAll, describe, expect } from 'vitest';
import {
  generateBody,
  itemPatchBody,
  itemWriteBody,
  oddString,
  retrieveBody,
  wellFormed,
} from '../../hardening/arbitraries.ts';
import {
  checkGenerateResponse,
  checkReply,
  checkRetrieveResults,
  expectedForBody,
} from '../../hardening/checks.ts';
import { JSON_TYPE } from '../../hardening/contract.ts';
import { envCount, expectErrorShape, expectItem, httpClient, listUpTo } from '../../hardening/http.ts';
import {
  type Fields,
  fieldsDiffer,
  modelGenerate,
  modelItemId,
  modelLimit,
  modelPatch,
  modelRetrieve,
  modelWrite,
} from '../../hardening/model.ts';
import { stack, tokenFor } from '../../support/stack.ts';

const RUNS = envCount('HARDENING_RUNS', 150);
const TIMEOUT = Math.max(60_000, RUNS * 400);
const SEED = process.env.HARDENING_SEED === undefined ? {} : { seed: Number(process.env.HARDENING_SEED) };
const params = { numRuns: RUNS, ...SEED };

const request = httpClient(stack.baseUrl);
const editor = tokenFor('editor');
const admin = tokenFor('admin');
const reader = tokenFor('reader');
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
/** Ids far above any the counter will reach in a test run: safe to delete, always 404. */
const NEVER_ALLOCATED = 9_000_000_000_000_000;
/** Longest encoded path segment or query string sent: request lines stay well under the 8-16 KB limits. */
const MAX_URL_PART = 6000;

interface Item extends Fields {
  id: number;
  createdAt: string;
  updatedAt: string;
  version: number;
}

const RUN = randomUUID().slice(0, 8);
let replaceTarget: Item;
let patchTarget: Item;
let disposable: number[] = [];
const deleted = new Set<number>();
let cursor: { value: string; afterId: number };

async function createItem(body: Record<string, unknown>): Promise<Item> {
  const reply = await request('POST', '/items', { token: editor, body });
  expect(reply.status, reply.text).toBe(201);
  return reply.body as Item;
}

const writable = (item: Item): Fields => ({
  name: item.name,
  description: item.description,
  tags: item.tags,
  attributes: item.attributes,
});
/** JSON's view of a value: `-0` becomes `0`, as it does on the wire. */
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value));

beforeAll(async () => {
  // Anchors give retrieval and generation something to find, filter and cite.
  await createItem({
    name: `fuzz anchor boot ${RUN}`,
    description: 'A waterproof boot for rain. Good outdoor boot [1].',
    tags: ['outdoor', 'fuzz'],
    attributes: { brand: 'acme', size: 3, light: true },
  });
  await createItem({ name: 'fuzz anchor jacket', description: 'Rain jacket.', tags: ['rain', 'fuzz'] });
  replaceTarget = await createItem({ name: 'fuzz replace target' });
  patchTarget = await createItem({ name: 'fuzz patch target' });
  disposable = [];
  for (let i = 0; i < 6; i++) disposable.push((await createItem({ name: `fuzz disposable ${i}` })).id);
  const page = await request('GET', '/items?limit=1');
  const link = page.headers.get('link') ?? '';
  const value = decodeURIComponent(/cursor=([^&>]+)/.exec(link)?.[1] ?? '');
  cursor = { value, afterId: (page.body as Item[])[0]?.id ?? 0 };
  expect(value).not.toBe('');
});

/**
 * The issued cursor with one MAC character changed. Not the last one: its low four bits are padding, so some
 * changes there decode to the same MAC and the service accepts them (reported as a minor finding).
 */
const tamper = (value: string): string => {
  const at = value.length - 6;
  return `${value.slice(0, at)}${value[at] === 'A' ? 'B' : 'A'}${value.slice(at + 1)}`;
};

/** `If-Match` as a fuzzed client sends it: none, the current version, a stale one, or malformed. */
const ifMatchArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 2, arbitrary: fc.constantFrom('current', 'stale') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('1', 'W/"1"', '*', '"abc"', '"0"', '"01"', '"99999999999999999"', '"1", "2"'),
  },
);

type IfMatch = { header?: string; verdict: 'none' | 'match' | 'stale' | 'malformed' };
function ifMatchFor(choice: string | undefined, version: number): IfMatch {
  if (choice === undefined) return { verdict: 'none' };
  if (choice === 'current') return { header: `"${version}"`, verdict: 'match' };
  if (choice === 'stale') return { header: `"${version + 7}"`, verdict: 'stale' };
  return { header: choice, verdict: 'malformed' };
}

/** Shared by PUT and PATCH: If-Match, then the body, then the version check, then the write. */
async function fuzzWrite(
  method: 'PUT' | 'PATCH',
  target: Item,
  text: string,
  choice: string | undefined,
  mergePatchType: boolean,
): Promise<Item> {
  const ifMatch = ifMatchFor(choice, target.version);
  const headers: Record<string, string> = {
    'content-type': mergePatchType ? 'application/merge-patch+json' : 'application/json',
  };
  if (ifMatch.header !== undefined) headers['if-match'] = ifMatch.header;
  const reply = await request(method, `/items/${target.id}`, { token: editor, raw: text, headers });
  const context = `${method} ${JSON.stringify(headers)} ${text.slice(0, 600)}`;
  if (ifMatch.verdict === 'malformed') {
    expect(reply.status, context).toBe(400);
    expect(reply.body, context).toStrictEqual({
      error: 'If-Match must be a quoted version, like "3" (a positive integer, at most 9007199254740991)',
    });
    return target;
  }
  const model = method === 'PUT' ? modelWrite : (body: unknown) => modelPatch(writable(target), body);
  const expected = expectedForBody(text, model);
  // The service validates the body, then checks If-Match, then validates the merged result.
  const mergeOnly = expected.kind === 'invalid' && expected.merge === true;
  const checkedBeforeWrite =
    expected.kind === 'valid' || ((expected.kind === 'either' || mergeOnly) && reply.status !== 422);
  if (ifMatch.verdict === 'stale' && checkedBeforeWrite) {
    expect({ status: reply.status, body: reply.body }, context).toStrictEqual({
      status: 412,
      body: { error: 'Precondition failed' },
    });
    return target;
  }
  const fields = checkReply(reply, expected, context);
  if (fields === undefined) return target;
  expectItem(reply.body, context);
  const item = reply.body as Item;
  expect(reply.headers.get('etag'), context).toBe(`"${item.version}"`);
  if (fields !== 'either') {
    const changed = fieldsDiffer(writable(target), fields);
    expect(item, context).toStrictEqual(
      changed
        ? { ...target, ...asJson(fields), updatedAt: ISO, version: target.version + 1 }
        : asJson(target),
    );
  }
  return item;
}

describe('fuzzing every endpoint over HTTP', () => {
  test.prop([itemWriteBody], params)(
    'POST /items: never 5xx; 400/413/422 as the contract says; 201 stores what was asked',
    async (text) => {
      const reply = await request('POST', '/items', { token: editor, raw: text });
      const context = `POST ${text.slice(0, 600)}`;
      const fields = checkReply(reply, expectedForBody(text, modelWrite), context);
      if (fields === undefined) return;
      expect(reply.status, `${context} → ${reply.text.slice(0, 300)}`).toBe(201);
      expectItem(reply.body, context);
      const item = reply.body as Item;
      expect(reply.headers.get('location'), context).toBe(`/items/${item.id}`);
      expect(reply.headers.get('etag'), context).toBe('"1"');
      if (fields !== 'either') {
        expect(item, context).toStrictEqual({
          id: item.id,
          ...asJson(fields),
          createdAt: ISO,
          updatedAt: item.createdAt,
          version: 1,
        });
      }
    },
    TIMEOUT,
  );

  test.prop([itemWriteBody, ifMatchArb], params)(
    'PUT /items/{id}: never 5xx; If-Match, 400/413/422 and 412 in order; 200 is the replacement',
    async (text, choice) => {
      replaceTarget = await fuzzWrite('PUT', replaceTarget, text, choice, false);
    },
    TIMEOUT,
  );

  test.prop([itemPatchBody, ifMatchArb, fc.boolean()], params)(
    'PATCH /items/{id}: never 5xx; 400/413/422/412 as the contract says; 200 is the merge (RFC 7396)',
    async (text, choice, mergePatchType) => {
      patchTarget = await fuzzWrite('PATCH', patchTarget, text, choice, mergePatchType);
    },
    TIMEOUT,
  );

  const limitValue = fc.oneof(
    fc.constantFrom(
      '0',
      '1',
      '2',
      '99',
      '100',
      '101',
      '05',
      '+5',
      '5.0',
      ' 5',
      '1e1',
      '-1',
      'abc',
      '',
      '1,2',
    ),
    oddString,
    fc.nat().map(String),
  );
  const queryPair = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constant('limit'), limitValue) },
    {
      weight: 3,
      arbitrary: fc.tuple(
        fc.constant('cursor'),
        fc.oneof(
          fc.constantFrom('issued', 'tampered', '', 'c1.1.AAAAAAAAAAAAAAAAAAAAAA', 'c1..', 'c2.1.x'),
          oddString,
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.oneof(fc.constantFrom('Limit', 'limit ', 'x', 'cursor[]'), oddString),
        oddString,
      ),
    },
  );

  const queryPairs = fc
    .array(queryPair, { maxLength: 4 })
    .filter((pairs) => new URLSearchParams(pairs).toString().length <= MAX_URL_PART);

  test.prop([queryPairs], params)(
    'GET /items?query: never 5xx; 422 for a bad limit or a cursor it did not issue; 200 pages in id order',
    async (pairs) => {
      const sent = new URLSearchParams();
      for (const [key, value] of pairs) {
        const resolved =
          key === 'cursor' && value === 'issued'
            ? cursor.value
            : key === 'cursor' && value === 'tampered'
              ? tamper(cursor.value)
              : value;
        sent.append(wellFormed(key), wellFormed(resolved));
      }
      const path = `/items?${sent.toString()}`;
      // What the function sees: decoded, repeated keys joined with commas (API Gateway's payload 2.0).
      // serverless-offline joins them too, except that an empty first value is dropped: where the two
      // differ, either answer is accepted.
      const gateway = new Map<string, string>();
      const offline = new Map<string, string>();
      for (const [key, value] of new URLSearchParams(sent.toString())) {
        gateway.set(key, gateway.has(key) ? `${gateway.get(key)},${value}` : value);
        offline.set(key, offline.get(key) ? `${offline.get(key)},${value}` : value);
      }
      const reply = await request('GET', path);
      const context = `GET ${path} → ${reply.status} ${reply.text.slice(0, 300)}`;
      expect(reply.status, context).toBeLessThan(500);
      const emulatorDiffers = ['limit', 'cursor'].some((key) => gateway.get(key) !== offline.get(key));
      const limitOutcome = modelLimit(gateway.get('limit'));
      const limit = emulatorDiffers ? { kind: 'either' as const } : limitOutcome;
      const cursorValue = gateway.get('cursor');
      const cursorOk = emulatorDiffers || cursorValue === undefined || cursorValue === cursor.value;
      if (limit.kind === 'invalid' || !cursorOk) {
        expectErrorShape(reply, context);
        expect(reply.status, context).toBe(422);
        const paths = (reply.body as { details: { path: string }[] }).details.map((d) => d.path);
        expect(
          paths.every((p) => p === 'query.limit' || p === 'query.cursor'),
          context,
        ).toBe(true);
        return;
      }
      if (limit.kind === 'either' && reply.status === 422) return expectErrorShape(reply, context);
      expect(reply.status, context).toBe(200);
      expect(reply.headers.get('content-type'), context).toBe(JSON_TYPE);
      const page = reply.body as Item[];
      if (limit.kind === 'valid') expect(page.length, context).toBeLessThanOrEqual(limit.value);
      for (const item of page) expectItem(item, context);
      const ids = page.map((item) => item.id);
      expect(ids, context).toStrictEqual([...ids].sort((a, b) => a - b));
      if (cursorValue !== undefined)
        expect(
          ids.every((id) => id > cursor.afterId),
          context,
        ).toBe(true);
    },
    TIMEOUT,
  );

  const segment = fc
    .oneof(
      { weight: 3, arbitrary: oddString },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          '1',
          '01',
          '0',
          '-1',
          '+1',
          '1.5',
          '1e3',
          '0x10',
          ' 1',
          '1 ',
          '１',
          '٣',
          '9007199254740991',
          '9007199254740992',
          '99999999999999999999',
          '%',
          '%2F',
          '1/2',
          '..%2F',
        ),
      },
      { weight: 1, arbitrary: fc.nat().map(String) },
    )
    .map(wellFormed)
    // Not '', '.' or '..' (URL normalization turns those into another route), and short enough for a request
    // line (API Gateway and Node's HTTP server refuse longer ones before the function runs).
    .filter((s) => s !== '' && s !== '.' && s !== '..' && encodeURIComponent(s).length <= MAX_URL_PART);

  test.prop([segment], params)(
    'GET /items/{id} with arbitrary path segments: never 5xx; 422 unless a positive safe integer; else 200 or 404',
    async (raw) => {
      const reply = await request('GET', `/items/${encodeURIComponent(raw)}`);
      const context = `GET /items/${encodeURIComponent(raw)}`;
      const id = modelItemId(raw);
      if (id === undefined) {
        expect({ status: reply.status, body: reply.body }, context).toStrictEqual({
          status: 422,
          body: {
            error: 'Validation failed',
            details: [{ path: 'path.item_id', message: expect.any(String) }],
          },
        });
        return;
      }
      expect([200, 404], context).toContain(reply.status);
      if (reply.status === 404) expect(reply.body, context).toStrictEqual({ error: 'Item not found' });
      else {
        expectItem(reply.body, context);
        expect((reply.body as Item).id, context).toBe(id);
        expect(reply.headers.get('etag'), context).toBe(`"${(reply.body as Item).version}"`);
      }
    },
    TIMEOUT,
  );

  test.prop(
    [fc.oneof({ weight: 4, arbitrary: segment }, { weight: 1, arbitrary: fc.nat({ max: 5 }) })],
    params,
  )(
    'DELETE /items/{id} with arbitrary path segments: never 5xx; 422, 404 or 204 as the contract says',
    async (choice) => {
      // Valid ids are sent only for this suite's disposable items or ids never allocated: other suites share
      // the stack.
      let raw: string;
      if (typeof choice === 'number') raw = String(disposable[choice]);
      else {
        const id = modelItemId(choice);
        raw = id === undefined ? choice : String(NEVER_ALLOCATED + (id % 1_000_000));
      }
      const reply = await request('DELETE', `/items/${encodeURIComponent(raw)}`, { token: admin });
      const context = `DELETE /items/${encodeURIComponent(raw)}`;
      const id = modelItemId(raw);
      if (id === undefined) {
        expect({ status: reply.status, body: reply.body }, context).toStrictEqual({
          status: 422,
          body: {
            error: 'Validation failed',
            details: [{ path: 'path.item_id', message: expect.any(String) }],
          },
        });
        return;
      }
      if (disposable.includes(id) && !deleted.has(id)) {
        expect({ status: reply.status, text: reply.text }, context).toStrictEqual({ status: 204, text: '' });
        deleted.add(id);
        return;
      }
      expect({ status: reply.status, body: reply.body }, context).toStrictEqual({
        status: 404,
        body: { error: 'Item not found' },
      });
    },
    TIMEOUT,
  );

  test.prop([retrieveBody], params)(
    'POST /retrieve: never 5xx; 400/413/422 as the contract says; 200 results ranked, filtered and valid',
    async (text) => {
      const reply = await request('POST', '/retrieve', { token: reader, raw: text });
      const context = `POST /retrieve ${text.slice(0, 600)}`;
      const input = checkReply(reply, expectedForBody(text, modelRetrieve), context);
      if (input === undefined) return;
      expect(reply.status, context).toBe(200);
      checkRetrieveResults(reply.body, input === 'either' ? undefined : input, context);
    },
    TIMEOUT,
  );

  test.prop([generateBody], params)(
    'POST /generate: never 5xx; 400/413/422 as the contract says; 200 answers cite what they mark',
    async (text) => {
      const reply = await request('POST', '/generate', { token: reader, raw: text });
      const context = `POST /generate ${text.slice(0, 600)}`;
      const input = checkReply(reply, expectedForBody(text, modelGenerate), context);
      if (input === undefined) return;
      expect(reply.status, context).toBe(200);
      checkGenerateResponse(reply.body, input === 'either' ? undefined : input.topK, context);
    },
    TIMEOUT,
  );

  test('leaves every stored item valid, and the deleted ones gone', async () => {
    const sentinel = await createItem({ name: 'fuzz sentinel' });
    const items = (await listUpTo(request, sentinel.id)) as Item[];
    for (const item of items) expectItem(item, `stored item ${item.id}`);
    const ids = new Set(items.map((item) => item.id));
    for (const id of deleted) expect(ids.has(id), `deleted ${id} is listed`).toBe(false);
    for (const id of [replaceTarget.id, patchTarget.id]) expect(ids.has(id)).toBe(true);
    expect((await request('GET', `/items/${patchTarget.id}`)).body).toStrictEqual(patchTarget);
    expect((await request('GET', `/items/${replaceTarget.id}`)).body).toStrictEqual(replaceTarget);
  });
});
