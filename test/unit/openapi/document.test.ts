import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { POLICY } from '../../../lib/auth/policy.ts';
import { GenerateRequestSchema } from '../../../lib/generate/schema.ts';
import {
  ItemPatchSchema,
  ItemPathSchema,
  ItemWriteSchema,
  ListQuerySchema,
} from '../../../lib/items/schema.ts';
import { buildOpenApiDocument } from '../../../lib/openapi/document.ts';
import { OPENAPI_FILE, renderOpenApiDocument } from '../../../lib/openapi/render.ts';
import { RetrieveRequestSchema } from '../../../lib/search/read/schema.ts';
import { isValid } from './json-schema-check.ts';

/** The committed document, as any client reads it: plain JSON. */
const committed: unknown = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));

/** Walks into a JSON value; undefined when a step is missing. */
const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>(
    (node, key) => (typeof node === 'object' && node !== null ? Reflect.get(node, key) : undefined),
    value,
  );
const keysOf = (value: unknown): string[] =>
  typeof value === 'object' && value !== null ? Object.keys(value) : [];

/** `#/components/...` references, followed through the committed document. */
const resolve = (ref: string): unknown => at(committed, ...ref.replace(/^#\//, '').split('/'));
const deref = (value: unknown): unknown => {
  const ref = at(value, '$ref');
  return typeof ref === 'string' ? deref(resolve(ref)) : value;
};

// Contract §1, §3 and §4: every route, who may call it, and every status it can answer.
const COMMON = ['400', '401', '429', '500'];
const STORE = ['502', '503', '504'];
const WITH_BODY = ['413', '415', '422', ...STORE];
const ROUTES = [
  { method: 'get', path: '/items', operationId: 'listItems', statuses: ['200', '304', '422', ...STORE] },
  {
    method: 'post',
    path: '/items',
    operationId: 'createItem',
    statuses: ['201', '403', '409', ...WITH_BODY],
  },
  {
    method: 'get',
    path: '/items/{item_id}',
    operationId: 'getItem',
    statuses: ['200', '304', '404', '422', ...STORE],
  },
  {
    method: 'put',
    path: '/items/{item_id}',
    operationId: 'replaceItem',
    statuses: ['200', '403', '404', '412', ...WITH_BODY],
  },
  {
    method: 'patch',
    path: '/items/{item_id}',
    operationId: 'patchItem',
    statuses: ['200', '403', '404', '412', ...WITH_BODY],
  },
  {
    method: 'delete',
    path: '/items/{item_id}',
    operationId: 'deleteItem',
    statuses: ['204', '403', '404', '412', '422', ...STORE],
  },
  { method: 'post', path: '/retrieve', operationId: 'retrieve', statuses: ['200', '403', ...WITH_BODY] },
  { method: 'post', path: '/generate', operationId: 'generate', statuses: ['200', '403', ...WITH_BODY] },
  { method: 'get', path: '/openapi.json', operationId: 'openapi', statuses: ['200'] },
] as const;

const operationAt = (path: string, method: string) => at(committed, 'paths', path, method);
const responseOf = (path: string, method: string, status: string) =>
  deref(at(operationAt(path, method), 'responses', status));

describe('the committed openapi.json', () => {
  it('is what the schemas build now (run `npm run openapi` when this fails)', () => {
    expect(committed).toStrictEqual(buildOpenApiDocument());
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApiDocument());
  });

  it('describes exactly the routes of the contract', () => {
    const routes = Object.entries(at(committed, 'paths') ?? {}).flatMap(([path, item]) =>
      keysOf(item).map((method) => `${method} ${path}`),
    );
    expect(routes.sort()).toStrictEqual(ROUTES.map(({ method, path }) => `${method} ${path}`).sort());
  });

  it.each(ROUTES)(
    '$method $path: operationId, access and every status',
    ({ method, path, operationId, statuses }) => {
      const operation = operationAt(path, method);
      const allowed: 'public' | readonly string[] = POLICY[operationId];
      expect(at(operation, 'operationId')).toBe(operationId);
      expect(keysOf(at(operation, 'responses')).sort()).toStrictEqual([...COMMON, ...statuses].sort());
      if (allowed === 'public') {
        expect(at(operation, 'security')).toStrictEqual([{}, { bearer: [] }]);
        expect(at(operation, 'description')).toContain('Who may call: anyone');
      } else {
        expect(at(operation, 'security')).toStrictEqual([{ bearer: [] }]);
        expect(at(operation, 'description')).toContain(`Who may call: ${allowed.join(', ')}`);
      }
    },
  );

  it('describes the bearer scheme, the error bodies and the headers of contract §1 and §4', () => {
    expect(at(committed, 'components', 'securitySchemes', 'bearer')).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(at(responseOf('/items', 'post', '401'), 'headers', 'WWW-Authenticate')).toBeDefined();
    expect(at(responseOf('/items', 'post', '403'), 'headers', 'WWW-Authenticate')).toBeDefined();
    expect(deref(at(responseOf('/generate', 'post', '503'), 'headers', 'Retry-After'))).toMatchObject({
      required: true,
    });
    expect(
      deref(at(responseOf('/items/{item_id}', 'get', '404'), 'content', 'application/json', 'schema')),
    ).toMatchObject({
      properties: { error: { const: 'Item not found' } },
      required: ['error'],
      additionalProperties: false,
    });
    expect(
      at(committed, 'components', 'schemas', 'Error', 'properties', 'details', 'items', 'required'),
    ).toStrictEqual(['path', 'message']);
    expect(keysOf(at(responseOf('/items', 'post', '201'), 'headers')).sort()).toStrictEqual([
      'ETag',
      'Idempotent-Replayed',
      'Location',
    ]);
    // Sent only on a replay of an Idempotency-Key, always as `true`.
    const replayed = deref(at(responseOf('/items', 'post', '201'), 'headers', 'Idempotent-Replayed'));
    expect({ required: at(replayed, 'required'), schema: at(replayed, 'schema') }).toStrictEqual({
      required: false,
      schema: { type: 'string', const: 'true' },
    });
    expect(keysOf(at(responseOf('/items', 'get', '200'), 'headers'))).toStrictEqual([
      'Link',
      'ETag',
      'Cache-Control',
      'Vary',
    ]);
    expect(keysOf(at(responseOf('/items/{item_id}', 'get', '200'), 'headers'))).toStrictEqual([
      'ETag',
      'Cache-Control',
      'Vary',
    ]);
    // Contract §4.1: a 304 carries the tag and the cache headers, and no body.
    for (const path of ['/items', '/items/{item_id}']) {
      expect(keysOf(at(responseOf(path, 'get', '304'), 'headers'))).toStrictEqual([
        'ETag',
        'Cache-Control',
        'Vary',
      ]);
      expect(at(responseOf(path, 'get', '304'), 'content')).toBeUndefined();
    }
    const headerNames = (path: string, method: string) =>
      [at(operationAt(path, method), 'parameters')]
        .flat()
        .flatMap((parameter) =>
          at(deref(parameter), 'in') === 'header' ? [at(deref(parameter), 'name')] : [],
        );
    expect(headerNames('/items', 'post')).toStrictEqual(['Idempotency-Key']);
    expect(headerNames('/items', 'get')).toStrictEqual(['If-None-Match']);
    expect(headerNames('/items/{item_id}', 'get')).toStrictEqual(['If-None-Match']);
    for (const method of ['put', 'patch', 'delete'])
      expect(headerNames('/items/{item_id}', method)).toStrictEqual(['If-Match']);
    expect(
      keysOf(at(operationAt('/items/{item_id}', 'patch'), 'requestBody', 'content')).sort(),
    ).toStrictEqual(['application/json', 'application/merge-patch+json']);
  });

  it('declares that Vary lists Authorization, whatever names a proxy adds to the list', () => {
    const vary = at(committed, 'components', 'headers', 'Vary', 'schema');
    const values = [
      'Authorization',
      'Authorization, Origin',
      'origin,authorization',
      'Accept-Encoding, AUTHORIZATION, Origin',
      'Origin',
      'X-Authorization',
      'Authorizations',
      '',
    ];
    expect(values.map((value) => [value, isValid(vary, value, resolve)])).toStrictEqual(
      values.map((value, i) => [value, i < 4]),
    );
  });

  it('tells client generators to treat the nested where expression as opaque or bound its recursion', () => {
    const description = String(at(committed, 'components', 'schemas', 'Where', 'description'));
    expect(description).toContain('at most 5 composites nested, at most 50 leaves in all.');
    expect(description).toContain('Treat `Where` as an opaque JSON object in generated types');
    expect(description).toContain('bound the recursion');
  });
});

const schemaOf = (name: string) => at(committed, 'components', 'schemas', name);
const parameterOf = (key: string) => at(committed, 'components', 'parameters', key, 'schema');

// Samples on which the document's JSON Schema and the handler's valibot schema must agree.
const SAMPLES: [string, v.GenericSchema, unknown[]][] = [
  [
    'ItemWrite',
    ItemWriteSchema,
    [
      { name: 'Trail Boot' },
      {
        name: 'Rain Jacket',
        description: 'Keeps you dry',
        tags: ['Outdoor', 'rain'],
        attributes: { size: 3, light: true },
      },
      { name: '😀'.repeat(200) },
      { name: '😀'.repeat(201) },
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x', id: 1 },
      { name: 'x', version: 2 },
      [],
      { name: 'x', description: 'd'.repeat(5001) },
      { name: 'x', tags: ['a', 'a'] },
      { name: 'x', tags: ['bad tag'] },
      { name: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
      { name: 'x', attributes: { '1bad': 'v' } },
      { name: 'x', attributes: JSON.parse('{"constructor":"x"}') },
      { name: 'x', attributes: JSON.parse('{"prototype":[]}') },
      { name: 'x', attributes: JSON.parse('{"__proto__":"x"}') },
      { name: 'x', attributes: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])) },
      { name: 'x', attributes: { a: 'v'.repeat(501) } },
      { name: 'x', attributes: { a: null } },
      { name: 'x', attributes: [] },
    ],
  ],
  [
    'ItemPatch',
    ItemPatchSchema,
    [
      {},
      { name: null },
      { description: null, tags: null, attributes: { drop: null, add: 'x' } },
      { attributes: null },
      { id: 3 },
    ],
  ],
  [
    'RetrieveRequest',
    RetrieveRequestSchema,
    [
      {
        query: 'waterproof boots',
        topK: 5,
        filter: { tags: ['Outdoor'], attributes: { brand: 'acme' } },
        minScore: 0,
      },
      { query: '' },
      { query: 'q', topK: 51 },
      { query: 'q', topK: 1.5 },
      { query: 'q', minScore: -1 },
      { query: 'q', filter: { colour: 'red' } },
      { topK: 5 },
    ],
  ],
  [
    'GenerateRequest',
    GenerateRequestSchema,
    [
      { query: 'q', maxTokens: 2048, temperature: 1 },
      { query: 'q', temperature: 1.5 },
      { query: 'x'.repeat(2001) },
    ],
  ],
];

describe('the request schemas in the document', () => {
  it.each(SAMPLES)('%s accepts and refuses what the handler accepts and refuses', (name, schema, samples) => {
    for (const sample of samples) {
      expect({ sample, valid: isValid(schemaOf(name), sample, resolve) }).toStrictEqual({
        sample,
        valid: v.safeParse(schema, sample).success,
      });
    }
  });

  it('describes the path and query parameters as the handlers read them', () => {
    for (const itemId of [
      '1',
      '42',
      '9007199254740991',
      '9007199254740992',
      '9999999999999999',
      '0',
      '01',
      '-1',
      'abc',
      '1.5',
      '1e3',
      '99999999999999999999',
    ]) {
      expect([itemId, isValid(parameterOf('path.item_id'), itemId, resolve)]).toStrictEqual([
        itemId,
        v.safeParse(ItemPathSchema, { item_id: itemId }).success,
      ]);
    }
    // Exactly 1 to 100: 101-999 would pass a pattern of up to three digits, and the handler answers them 422.
    for (const limit of [
      '1',
      '9',
      '10',
      '99',
      '100',
      '101',
      '109',
      '110',
      '200',
      '999',
      '1000',
      '0',
      '01',
      '010',
      '-5',
      'ten',
      '2.5',
    ]) {
      expect([limit, isValid(parameterOf('query.limit'), limit, resolve)]).toStrictEqual([
        limit,
        v.safeParse(ListQuerySchema, { limit }).success,
      ]);
    }
  });

  // What JSON Schema cannot state: the checks run after a transformation. Listed so a change is noticed.
  it('differs from the handlers only where a value is transformed before it is checked', () => {
    const differences = [
      ['ItemWrite', ItemWriteSchema, { name: 'x', tags: ['Outdoor', 'outdoor'] }], // distinct after lowercasing
      ['ItemWrite', ItemWriteSchema, { name: ` ${'x'.repeat(200)} ` }], // 200 characters after trimming
    ] as const;
    for (const [name, schema, sample] of differences) {
      expect(isValid(schemaOf(name), sample, resolve)).not.toBe(v.safeParse(schema, sample).success);
    }
  });

  it('bounds ids and versions exactly: 9007199254740991 is accepted, 9007199254740992 refused', () => {
    const published = {
      'path.item_id': [parameterOf('path.item_id'), (n: string) => n],
      'header.If-Match': [parameterOf('header.If-Match'), (n: string) => `"${n}"`],
      'ETag (response header)': [
        at(committed, 'components', 'headers', 'ETag', 'schema'),
        (n: string) => `"${n}"`,
      ],
    } as const;
    for (const [name, [schema, spell]] of Object.entries(published)) {
      expect([
        name,
        ...['1', '9007199254740991', '9007199254740992'].map((n) => isValid(schema, spell(n), resolve)),
      ]).toStrictEqual([name, true, true, false]);
    }
    for (const [name, field] of [
      ['Item', 'id'],
      ['Item', 'version'],
    ] as const) {
      expect([name, field, at(schemaOf(name), 'properties', field, 'maximum')]).toStrictEqual([
        name,
        field,
        9007199254740991,
      ]);
    }
  });
});

const nodeTool = (bin: string, args: string[]) =>
  spawnSync(process.execPath, [`node_modules/.bin/${bin}`, ...args], {
    encoding: 'utf8',
    // Offline: no usage data, no update check.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });

describe('tools on the committed files', () => {
  it('passes redocly lint with no errors', () => {
    const lint = nodeTool('redocly', ['lint', OPENAPI_FILE]);
    expect({
      status: lint.status,
      output: lint.status === 0 ? '' : `${lint.stdout}${lint.stderr}`,
    }).toStrictEqual({
      status: 0,
      output: '',
    });
  });

  it('has test/support/api-types.ts as openapi-typescript generates it now (run `npm run openapi:types`)', () => {
    const { scripts } = v.parse(
      v.object({ scripts: v.record(v.string(), v.string()) }),
      JSON.parse(readFileSync('package.json', 'utf8')),
    );
    const [bin, ...args] = (scripts['openapi:types'] ?? '').split(' ');
    expect(bin).toBe('openapi-typescript');
    const check = nodeTool('openapi-typescript', [...args, '--check']);
    expect({
      status: check.status,
      output: check.status === 0 ? '' : `${check.stdout}${check.stderr}`,
    }).toStrictEqual({
      status: 0,
      output: '',
    });
  });
});
