import { fc, test } from '@fast-check/vitest';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../../lib/errors.ts';
import type { Item } from '../../../../lib/items/schema.ts';
import { compareCodePoints, matchesWhere } from '../../../../lib/search/read/where.ts';
import { WhereSchema } from '../../../../lib/search/read/where-schema.ts';
import { parseOrReject } from '../../../../lib/validation.ts';

/** The schema as a request body carries it, so the paths are the ones a client sees. */
const Body = v.strictObject({ where: WhereSchema });

const details = (where: unknown) => {
  try {
    parseOrReject(Body, { where });
  } catch (error) {
    if (error instanceof InvalidInputError) return error.problems;
    throw error;
  }
  throw new Error('expected a validation error');
};
const parse = (where: unknown) => v.parse(WhereSchema, where);

const eq = (key: unknown, value: unknown) => ({ equals: { key, value } });
const leaves = (count: number) => Array.from({ length: count }, (_, i) => eq('attributes.n', i));
/** `depth` composites nested in one another, each with a leaf beside the next. */
const nested = (depth: number): unknown =>
  depth === 0 ? eq('id', 1) : { andAll: [nested(depth - 1), eq('id', depth)] };

const item = (overrides: Partial<Item> = {}): Item => ({
  id: 42,
  name: 'Trail Boot',
  description: 'A waterproof boot for rainy hikes',
  tags: ['outdoor', 'boots'],
  attributes: { brand: 'acme', price: 120, waterproof: true, code: '120' },
  createdAt: '2024-03-01T10:00:00.000Z',
  updatedAt: '2024-05-20T08:30:00.000Z',
  version: 3,
  ...overrides,
});

const matches = (where: unknown, target: Item = item()) => matchesWhere(target, parse(where));

describe('WhereSchema accepts', () => {
  it('the contract example as written, tags lowercased as filter tags are', () => {
    const example = {
      andAll: [
        { listContains: { key: 'tags', value: 'Outdoor' } },
        { lessThanOrEquals: { key: 'attributes.price', value: 120 } },
        {
          orAll: [
            { equals: { key: 'attributes.brand', value: 'acme' } },
            { in: { key: 'attributes.color', value: ['red', 'blue'] } },
          ],
        },
      ],
    };
    expect(parse(example)).toStrictEqual({
      ...example,
      andAll: [{ listContains: { key: 'tags', value: 'outdoor' } }, ...example.andAll.slice(1)],
    });
  });

  it.each([
    ['a composite of 2 expressions', { orAll: leaves(2) }],
    ['a composite of 10 expressions', { orAll: leaves(10) }],
    ['5 composites nested', nested(5)],
    ['50 leaves', { andAll: Array.from({ length: 5 }, () => ({ orAll: leaves(10) })) }],
    ['in with 1 value', { in: { key: 'id', value: [1] } }],
    ['in with 50 values', { notIn: { key: 'id', value: Array.from({ length: 50 }, (_, i) => i) } }],
    [
      'every field key',
      { orAll: ['id', 'name', 'description', 'createdAt', 'updatedAt'].map((k) => eq(k, 1)) },
    ],
    ['an attribute key of 64 characters', eq(`attributes.a${'b'.repeat(63)}`, 'x')],
    ['ordering on strings and numbers', { orAll: [{ lessThan: { key: 'name', value: 'm' } }, nested(0)] }],
    ['empty strings', { orAll: [{ startsWith: { key: 'name', value: '' } }, eq('name', '')] }],
  ])('%s', (_, where) => {
    expect(parse(where)).toStrictEqual(where);
  });
});

describe('WhereSchema refuses, with the path of the fault', () => {
  const opList =
    'equals, notEquals, greaterThan, greaterThanOrEquals, lessThan, lessThanOrEquals, in, notIn, startsWith, ' +
    'stringContains, listContains, andAll, orAll';
  const keyRule =
    'must be id, name, description, createdAt, updatedAt or attributes.<key> (key as for item attributes)';

  it.each([
    [
      'a value of the wrong type for an ordering operator',
      { andAll: [eq('id', 1), { greaterThan: { key: 'attributes.price', value: true } }] },
      'where.andAll.1.greaterThan.value',
      'must be a number or a string',
    ],
    [
      'an unknown operator, at the operator',
      { andAll: [eq('id', 1), { greaterThen: { key: 'attributes.price', value: 1 } }] },
      'where.andAll.1.greaterThen',
      `is not an operator: use one of ${opList}`,
    ],
    [
      'a leaf with two operators, at the leaf',
      { orAll: [eq('id', 1), { ...eq('id', 2), notEquals: { key: 'id', value: 3 } }] },
      'where.orAll.1',
      `must have exactly one operator (${opList})`,
    ],
    [
      'an object with no operator',
      { orAll: [eq('id', 1), {}] },
      'where.orAll.1',
      `must have exactly one operator (${opList})`,
    ],
    ['a where that is not an object', [eq('id', 1)], 'where', 'must be an object with one operator'],
    [
      'a child that is not an object',
      { andAll: [eq('id', 1), 'x'] },
      'where.andAll.1',
      'must be an object with one operator',
    ],
    ['a composite of 1', { andAll: leaves(1) }, 'where.andAll', 'must have 2 to 10 expressions'],
    ['a composite of 11', { orAll: leaves(11) }, 'where.orAll', 'must have 2 to 10 expressions'],
    [
      'a composite that is not an array',
      { orAll: eq('id', 1) },
      'where.orAll',
      'must be an array of 2 to 10 expressions',
    ],
    [
      '6 composites nested, at the sixth',
      nested(6),
      'where.andAll.0.andAll.0.andAll.0.andAll.0.andAll.0.andAll',
      'nests too deeply: at most 5 andAll/orAll may enclose one another',
    ],
    [
      '51 leaves, at the root',
      { andAll: [...Array.from({ length: 5 }, () => ({ orAll: leaves(10) })), eq('id', 1)] },
      'where',
      'must have at most 50 leaves in all, has 51',
    ],
    [
      'a leaf body that is not an object',
      { equals: 'id' },
      'where.equals',
      'must be an object { "key": …, "value": … }',
    ],
    ['a leaf without its value', { equals: { key: 'id' } }, 'where.equals.value', 'is required'],
    ['a leaf without its key', { equals: { value: 1 } }, 'where.equals.key', 'is required'],
    [
      'a leaf with another field',
      { equals: { key: 'id', value: 1, op: 'x' } },
      'where.equals.op',
      'is not an accepted field',
    ],
    ['an unknown field', eq('version', 1), 'where.equals.key', keyRule],
    ['an attribute key that breaks the key rule', eq('attributes.1st', 1), 'where.equals.key', keyRule],
    ['an attribute key too long', eq(`attributes.a${'b'.repeat(64)}`, 1), 'where.equals.key', keyRule],
    ['a bare attributes key', eq('attributes.', 1), 'where.equals.key', keyRule],
    ['a key that is not a string', eq(7, 1), 'where.equals.key', 'must be a string'],
    [
      'equals on tags',
      eq('tags', 'outdoor'),
      'where.equals.key',
      'equals does not apply to tags: use listContains',
    ],
    [
      'another operator on tags',
      { stringContains: { key: 'tags', value: 'out' } },
      'where.stringContains.key',
      'stringContains does not apply to tags: use listContains',
    ],
    [
      'listContains on another key',
      { listContains: { key: 'name', value: 'x' } },
      'where.listContains.key',
      'must be "tags": listContains applies to tags',
    ],
    [
      'listContains with a value that is not a tag',
      { listContains: { key: 'tags', value: 'no spaces' } },
      'where.listContains.value',
      'must be 1-50 characters of a-z, 0-9 and -',
    ],
    [
      'equals with an object',
      eq('id', { n: 1 }),
      'where.equals.value',
      'must be a string, a number or a boolean',
    ],
    ['equals with null', eq('id', null), 'where.equals.value', 'must be a string, a number or a boolean'],
    [
      'startsWith with a number',
      { startsWith: { key: 'name', value: 1 } },
      'where.startsWith.value',
      'must be a string',
    ],
    ['in with no values', { in: { key: 'id', value: [] } }, 'where.in.value', 'must have 1 to 50 values'],
    [
      'in with 51 values',
      { in: { key: 'id', value: Array.from({ length: 51 }, (_, i) => i) } },
      'where.in.value',
      'must have 1 to 50 values',
    ],
    [
      'in with a value that is not scalar',
      { notIn: { key: 'id', value: [1, [2]] } },
      'where.notIn.value.1',
      'must be a string, a number or a boolean',
    ],
    [
      'in with a single value',
      { in: { key: 'id', value: 1 } },
      'where.in.value',
      'must be an array of 1 to 50 values',
    ],
  ])('%s', (_, where, path, message) => {
    expect(details(where)).toStrictEqual([{ path, message }]);
  });

  it('reports every fault of a composite at its own path', () => {
    expect(
      details({
        orAll: [
          { greaterThan: { key: 'attributes.price', value: null } },
          { andAll: [eq('nope', 1), { in: { key: 'id', value: [] } }] },
        ],
      }),
    ).toStrictEqual([
      { path: 'where.orAll.0.greaterThan.value', message: 'must be a number or a string' },
      { path: 'where.orAll.1.andAll.0.equals.key', message: keyRule },
      { path: 'where.orAll.1.andAll.1.in.value', message: 'must have 1 to 50 values' },
    ]);
  });

  it('refuses JSON nested thousands deep at the sixth composite, without recursing into the rest', () => {
    let where: unknown = eq('id', 1);
    for (let i = 0; i < 10_000; i++) where = { andAll: [where] };
    // The children are examined before their count, so the depth is what is reported.
    expect(details(where)).toStrictEqual([
      {
        path: 'where.andAll.0.andAll.0.andAll.0.andAll.0.andAll.0.andAll',
        message: 'nests too deeply: at most 5 andAll/orAll may enclose one another',
      },
    ]);
    expect(details(nested(3_000))).toStrictEqual([
      { path: 'where', message: 'must have at most 50 leaves in all, has 3001' },
    ]);
  });
});

describe('matchesWhere', () => {
  it.each([
    ['equals on a string attribute', eq('attributes.brand', 'acme'), true],
    ['equals on a number attribute', eq('attributes.price', 120), true],
    ['equals on a boolean attribute', eq('attributes.waterproof', true), true],
    ['equals on id', eq('id', 42), true],
    ['equals on name, exactly', eq('name', 'Trail Boot'), true],
    ['equals is case-sensitive', eq('name', 'trail boot'), false],
    ['equals compares types: "120" is not 120', eq('attributes.code', 120), false],
    ['equals compares types: 120 is not "120"', eq('attributes.price', '120'), false],
    ['equals compares types: true is not 1', eq('attributes.waterproof', 1), false],
    ['equals on a missing attribute', eq('attributes.color', 'red'), false],
    ['notEquals on a different value', { notEquals: { key: 'attributes.brand', value: 'zeta' } }, true],
    ['notEquals on the same value', { notEquals: { key: 'attributes.brand', value: 'acme' } }, false],
    ['notEquals on a value of another type', { notEquals: { key: 'attributes.price', value: '120' } }, true],
    ['notEquals on a missing attribute', { notEquals: { key: 'attributes.color', value: 'red' } }, true],
    ['greaterThan on numbers', { greaterThan: { key: 'attributes.price', value: 100 } }, true],
    ['greaterThan on an equal number', { greaterThan: { key: 'attributes.price', value: 120 } }, false],
    [
      'greaterThanOrEquals on an equal number',
      { greaterThanOrEquals: { key: 'attributes.price', value: 120 } },
      true,
    ],
    ['lessThan on numbers', { lessThan: { key: 'attributes.price', value: 120.5 } }, true],
    ['lessThanOrEquals on an equal number', { lessThanOrEquals: { key: 'id', value: 42 } }, true],
    ['lessThanOrEquals on a smaller number', { lessThanOrEquals: { key: 'id', value: 41 } }, false],
    [
      'ordering numbers numerically, not as text',
      { greaterThan: { key: 'attributes.price', value: 99 } },
      true,
    ],
    ['ordering strings by code point', { lessThan: { key: 'name', value: 'Trail boot' } }, true],
    [
      'ordering timestamps by time',
      { greaterThanOrEquals: { key: 'createdAt', value: '2024-03-01T10:00:00.000Z' } },
      true,
    ],
    [
      'ordering timestamps by time, before',
      { lessThan: { key: 'updatedAt', value: '2024-05-20T08:00:00.000Z' } },
      false,
    ],
    ['ordering a number against a string', { greaterThan: { key: 'attributes.code', value: 100 } }, false],
    ['ordering a string against a number', { lessThan: { key: 'attributes.price', value: 'z' } }, false],
    [
      'ordering a boolean attribute',
      { greaterThanOrEquals: { key: 'attributes.waterproof', value: 0 } },
      false,
    ],
    ['ordering on a missing attribute', { lessThan: { key: 'attributes.weight', value: 1000 } }, false],
    ['in with the value', { in: { key: 'attributes.brand', value: ['zeta', 'acme'] } }, true],
    ['in by type', { in: { key: 'attributes.price', value: ['120', true] } }, false],
    ['in on a missing attribute', { in: { key: 'attributes.color', value: ['red'] } }, false],
    ['notIn without the value', { notIn: { key: 'attributes.brand', value: ['zeta'] } }, true],
    ['notIn with the value', { notIn: { key: 'id', value: [1, 42] } }, false],
    ['notIn on a missing attribute', { notIn: { key: 'attributes.color', value: ['red'] } }, true],
    ['startsWith', { startsWith: { key: 'description', value: 'A water' } }, true],
    ['startsWith is case-sensitive', { startsWith: { key: 'description', value: 'a water' } }, false],
    ['startsWith elsewhere than the start', { startsWith: { key: 'description', value: 'water' } }, false],
    ['startsWith on a number attribute', { startsWith: { key: 'attributes.price', value: '1' } }, false],
    ['startsWith on a missing attribute', { startsWith: { key: 'attributes.color', value: '' } }, false],
    ['stringContains', { stringContains: { key: 'description', value: 'rainy' } }, true],
    ['stringContains is case-sensitive', { stringContains: { key: 'name', value: 'boot' } }, false],
    [
      'stringContains on a string attribute',
      { stringContains: { key: 'attributes.code', value: '20' } },
      true,
    ],
    [
      'stringContains on a boolean attribute',
      { stringContains: { key: 'attributes.waterproof', value: 'true' } },
      false,
    ],
    ['listContains with the tag', { listContains: { key: 'tags', value: 'boots' } }, true],
    ['listContains without the tag', { listContains: { key: 'tags', value: 'boot' } }, false],
    ['andAll when all match', { andAll: [eq('id', 42), eq('attributes.brand', 'acme')] }, true],
    ['andAll when one does not', { andAll: [eq('id', 42), eq('attributes.brand', 'zeta')] }, false],
    ['orAll when one matches', { orAll: [eq('id', 1), eq('attributes.brand', 'acme')] }, true],
    ['orAll when none does', { orAll: [eq('id', 1), eq('attributes.brand', 'zeta')] }, false],
  ])('%s → %s', (_, where, expected) => {
    expect(matches(where)).toBe(expected);
  });

  it('evaluates the contract example', () => {
    const example = {
      andAll: [
        { listContains: { key: 'tags', value: 'outdoor' } },
        { lessThanOrEquals: { key: 'attributes.price', value: 120 } },
        {
          orAll: [
            { equals: { key: 'attributes.brand', value: 'acme' } },
            { in: { key: 'attributes.color', value: ['red', 'blue'] } },
          ],
        },
      ],
    };
    expect(matches(example)).toBe(true);
    expect(matches(example, item({ attributes: { brand: 'zeta', price: 99, color: 'blue' } }))).toBe(true);
    expect(matches(example, item({ attributes: { brand: 'zeta', price: 99, color: 'green' } }))).toBe(false);
    expect(matches(example, item({ attributes: { brand: 'acme', price: 121 } }))).toBe(false);
    expect(matches(example, item({ tags: ['boots'] }))).toBe(false);
  });

  it('orders strings by code point, where UTF-16 order differs', () => {
    // U+FF5E is one unit, 0xFF5E; U+1F600 is the pair 0xD83D 0xDE00, below it in UTF-16 but above it as a code point.
    const target = item({ name: '😀' });
    expect('😀' < '～').toBe(true);
    expect(matches({ greaterThan: { key: 'name', value: '～' } }, target)).toBe(true);
    expect(matches({ lessThan: { key: 'name', value: '～' } }, target)).toBe(false);
  });

  it('matches text as whole code points: half of a surrogate pair is not in it', () => {
    const target = item({ name: 'a😀' });
    expect(matches({ stringContains: { key: 'name', value: '\uD83D' } }, target)).toBe(false);
    expect(matches({ stringContains: { key: 'name', value: '\uDE00' } }, target)).toBe(false);
    expect(matches({ startsWith: { key: 'name', value: 'a\uD83D' } }, target)).toBe(false);
    expect(matches({ stringContains: { key: 'name', value: '😀' } }, target)).toBe(true);
    // A lone surrogate in the text is a code point of its own and can be found.
    expect(matches({ stringContains: { key: 'name', value: '\uD83D' } }, item({ name: 'a\uD83Db' }))).toBe(
      true,
    );
  });
});

// ---- Properties: matchesWhere against a plain in-memory evaluation ----

/** An expression as the generator builds it; `toJson` spells it as a client would. */
type Model =
  | {
      readonly op: string;
      readonly key: string;
      readonly value: string | number | boolean | (string | number | boolean)[];
    }
  | { readonly all: boolean; readonly children: readonly Model[] };

const toJson = (model: Model): unknown =>
  'children' in model
    ? { [model.all ? 'andAll' : 'orAll']: model.children.map(toJson) }
    : { [model.op]: { key: model.key, value: model.value } };

const leafCount = (model: Model): number =>
  'children' in model ? model.children.reduce((n, child) => n + leafCount(child), 0) : 1;

/** Fragments whose joins make pairs, lone surrogates, astral and full-width characters, accents and timestamps. */
const fragment = fc.constantFrom(
  'a',
  'b',
  'A',
  'é',
  'e\u0301',
  '～',
  '😀',
  '\uD83D',
  '\uDE00',
  ' ',
  '2024',
  '-0',
);
const text = fc.array(fragment, { maxLength: 4 }).map((parts) => parts.join(''));
const timestamp = fc.constantFrom(
  '2024-01-01T00:00:00.000Z',
  '2024-06-01T12:00:00.000Z',
  '2025-01-01T00:00:00.000Z',
);
const number = fc.constantFrom(-3, -0, 0, 1, 1.5, 2, 120, 1e21);
const scalar = fc.oneof(text, timestamp, number, fc.boolean());
const ATTRIBUTE_KEYS = ['brand', 'price', 'flag', 'constructor'] as const;
const TAGS = ['outdoor', 'rain', 'a-b'] as const;
const key = fc.constantFrom(
  'id',
  'name',
  'description',
  'createdAt',
  'updatedAt',
  ...ATTRIBUTE_KEYS.map((k) => `attributes.${k}`),
);

const leafModel: fc.Arbitrary<Model> = fc.oneof(
  fc.record({ op: fc.constantFrom('equals', 'notEquals'), key, value: scalar }),
  fc.record({
    op: fc.constantFrom('greaterThan', 'greaterThanOrEquals', 'lessThan', 'lessThanOrEquals'),
    key,
    value: fc.oneof(text, timestamp, number),
  }),
  fc.record({
    op: fc.constantFrom('in', 'notIn'),
    key,
    value: fc.array(scalar, { minLength: 1, maxLength: 5 }),
  }),
  fc.record({ op: fc.constantFrom('startsWith', 'stringContains'), key, value: fc.oneof(text, timestamp) }),
  fc.record({ op: fc.constant('listContains'), key: fc.constant('tags'), value: fc.constantFrom(...TAGS) }),
);

/** Expressions with at most `depth` composites nested. */
const modelOf: (depth: number) => fc.Arbitrary<Model> = fc.memo((depth) =>
  depth <= 0
    ? leafModel
    : fc.oneof(
        { weight: 2, arbitrary: leafModel },
        {
          weight: 1,
          arbitrary: fc.record({
            all: fc.boolean(),
            children: fc.array(modelOf(depth - 1), { minLength: 2, maxLength: 10 }),
          }),
        },
      ),
);
const model = modelOf(5).filter((m) => leafCount(m) <= 50);

const itemArbitrary: fc.Arbitrary<Item> = fc.record({
  id: fc.integer({ min: -3, max: 3 }),
  name: text,
  description: fc.oneof(text, timestamp),
  tags: fc.subarray([...TAGS]),
  attributes: fc.dictionary(fc.constantFrom(...ATTRIBUTE_KEYS), scalar, { maxKeys: 4 }),
  createdAt: timestamp,
  updatedAt: fc.oneof(timestamp, text),
  version: fc.constant(1),
});

/** Code points, so that comparisons below are plain array comparisons. */
const points = (s: string) => Array.from(s, (c) => c.codePointAt(0) ?? 0);
const compareArrays = (a: number[], b: number[]): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return a.length - b.length;
};
const startsAt = (hay: number[], needle: number[], at: number) => needle.every((p, i) => hay[at + i] === p);

/** The simplest evaluation of §8.1 there is. */
function reference(target: Item, m: Model): boolean {
  if ('children' in m)
    return m.all
      ? m.children.every((c) => reference(target, c))
      : m.children.some((c) => reference(target, c));
  if (m.op === 'listContains') return target.tags.includes(String(m.value));
  const record: Record<string, unknown> = { ...target };
  const attribute = m.key.startsWith('attributes.') ? m.key.slice('attributes.'.length) : undefined;
  const present = attribute === undefined || Object.hasOwn(target.attributes, attribute);
  const field = attribute === undefined ? record[m.key] : target.attributes[attribute];
  const value = m.value;
  switch (m.op) {
    case 'equals':
      return present && field === value;
    case 'notEquals':
      return !(present && field === value);
    case 'in':
      return present && Array.isArray(value) && value.some((x) => x === field);
    case 'notIn':
      return !(present && Array.isArray(value) && value.some((x) => x === field));
    case 'startsWith':
      return (
        typeof field === 'string' && typeof value === 'string' && startsAt(points(field), points(value), 0)
      );
    case 'stringContains': {
      if (typeof field !== 'string' || typeof value !== 'string') return false;
      const hay = points(field);
      const needle = points(value);
      for (let at = 0; at + needle.length <= hay.length; at++) if (startsAt(hay, needle, at)) return true;
      return false;
    }
  }
  let order: number;
  if (typeof field === 'number' && typeof value === 'number') order = field - value;
  else if (typeof field === 'string' && typeof value === 'string')
    order = compareArrays(points(field), points(value));
  else return false;
  if (m.op === 'greaterThan') return order > 0;
  if (m.op === 'greaterThanOrEquals') return order >= 0;
  if (m.op === 'lessThan') return order < 0;
  return order <= 0;
}

describe('where properties', () => {
  test.prop([model], { numRuns: 300 })('every generated expression passes the schema as it is', (m) => {
    expect(parse(toJson(m))).toStrictEqual(toJson(m));
  });

  test.prop([fc.array(itemArbitrary, { minLength: 1, maxLength: 8 }), model], { numRuns: 500 })(
    'matchesWhere agrees with a plain evaluation',
    (items, m) => {
      const expression = parse(toJson(m));
      expect(items.map((target) => matchesWhere(target, expression))).toStrictEqual(
        items.map((target) => reference(target, m)),
      );
    },
  );

  test.prop([fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })], { numRuns: 1000 })(
    'compareCodePoints orders as the code point sequences do',
    (a, b) => {
      expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(compareArrays(points(a), points(b))));
    },
  );

  const surrogateHeavy = fc
    .array(fc.constantFrom('a', '\uD83D', '\uDE00', '\uFF5E', '\uE000', '😀'), { maxLength: 6 })
    .map((parts) => parts.join(''));
  test.prop([surrogateHeavy, surrogateHeavy], { numRuns: 1000 })(
    'compareCodePoints orders surrogate-heavy strings as the code point sequences do',
    (a, b) => {
      expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(compareArrays(points(a), points(b))));
    },
  );
});
