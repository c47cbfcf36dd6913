// fast-check arbitraries for hostile request input. Bodies are built as a small JSON syntax tree and written
// out by hand, so they can hold what JSON.stringify cannot: number literals such as `1e999` or `-0`, repeated
// keys, `__proto__` as an own key, and nesting thousands of levels deep.
import { fc } from '@fast-check/vitest';

/** A JSON number written exactly as `raw`. */
export interface JsonNumber {
  $num: string;
}
/** A JSON object as its entries, in order (keys may repeat). */
export interface JsonObject {
  $obj: [string, Json][];
}
/** `depth` levels of `[` or `{"a":` around `1`. */
export interface JsonDeep {
  $deep: { depth: number; kind: 'array' | 'object' };
}
export type Json = null | boolean | string | JsonNumber | JsonObject | JsonDeep | Json[];

/** What a client sends for a string with lone surrogates: each becomes U+FFFD on the wire (UTF-8). */
export const wellFormed = (text: string): string =>
  text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** Writes the tree as JSON text; strings go through JSON.stringify, so lone surrogates come out escaped. */
export function writeJson(value: Json): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
  if ('$num' in value) return value.$num;
  if ('$deep' in value) {
    const { depth, kind } = value.$deep;
    return kind === 'array'
      ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  }
  return `{${value.$obj.map(([key, v]) => `${JSON.stringify(key)}:${writeJson(v)}`).join(',')}}`;
}

export const num = (raw: string): JsonNumber => ({ $num: raw });
export const obj = (entries: [string, Json][]): JsonObject => ({ $obj: entries });

const repeatTo = (unit: string, count: number) => unit.repeat(count);

/** Strings a parser, a validator or a store may trip on. */
export const SPECIAL_STRINGS = [
  '',
  ' ',
  '   ',
  '\t\n\r',
  '\u00a0\u3000',
  '\u200b',
  '\u200b\u200c\u200d\u2060\ufeff',
  '\u202eevil\u202c',
  '\u2066isolate\u2069',
  'שלום עולם',
  'مرحبا بالعالم',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  '😀',
  'e\u0301',
  'İ',
  '\u212a',
  'ß',
  'ﬁ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  '\ud83d',
  'a\ud800b',
  '\udfff\ud800',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '<script>alert(1)</script>',
  "' OR '1'='1' --",
  ['$', '{7*7}'].join(''), // a template-injection probe, written so no linter takes it for a mistake
  '{{7*7}}',
  '../../etc/passwd',
  '%00',
  'null',
  'true',
  '1e999',
  'NaN',
  '-Infinity',
  'outdoor',
  'Outdoor',
  'OUTDOOR',
  'brand',
  'acme',
  'boot',
  'tag-1',
  '-',
  'a_b',
  'A1',
  'Z',
  '9x',
  repeatTo('a', 50),
  repeatTo('a', 51),
  repeatTo('k', 64),
  repeatTo('k', 65),
  repeatTo('n', 200),
  repeatTo('n', 201),
  `  ${repeatTo('n', 200)}  `,
  repeatTo('😀', 200),
  repeatTo('😀', 201),
  repeatTo('v', 500),
  repeatTo('v', 501),
  repeatTo('😀', 500),
  repeatTo('😀', 501),
  repeatTo('d', 5000),
  repeatTo('d', 5001),
  repeatTo('é', 5000),
  repeatTo('😀', 5001),
  repeatTo('q', 2000),
  repeatTo('q', 2001),
];

/** Odd strings: arbitrary Unicode (lone surrogates included), special cases and length boundaries. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  {
    weight: 2,
    arbitrary: fc.string({ unit: fc.constantFrom(...'abcXYZ019-_ '), minLength: 1, maxLength: 12 }),
  },
);

/** Number literals: ordinary, huge, tiny, negative zero, over-long and overflowing to Infinity. */
export const oddNumber: fc.Arbitrary<JsonNumber> = fc.oneof(
  fc.integer().map((n) => num(String(n))),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => num(Object.is(n, -0) ? '-0' : String(n))),
  fc
    .constantFrom(
      '0',
      '-0',
      '1',
      '-1',
      '1.0',
      '1.5',
      '0.5',
      '1e2',
      '1E2',
      '5',
      '20',
      '21',
      '50',
      '51',
      '100',
      '101',
      '2048',
      '2049',
      '1e999',
      '-1e999',
      '1e308',
      '1.7976931348623157e308',
      '5e-324',
      '1e-400',
      '9007199254740993',
      '123456789012345678901234567890',
      '0e0',
      '-0.0',
    )
    .map(num),
);

const leaf: fc.Arbitrary<Json> = fc.oneof(fc.constant(null), fc.boolean(), oddString, oddNumber);

const objectKey = fc.oneof(
  oddString,
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'name', 'tags', 'attributes', 'a', 'brand'),
);

/** Any JSON value, including deep nesting and prototype-named keys. */
export const anyJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: leaf },
    { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    {
      weight: 2,
      arbitrary: fc.array(fc.tuple(objectKey, tie('value')), { maxLength: 4 }).map(obj),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        $deep: fc.record({
          depth: fc.constantFrom(64, 1000, 5000),
          kind: fc.constantFrom<'array' | 'object'>('array', 'object'),
        }),
      }),
    },
  ),
})).value;

/** A field value: mostly one that may be valid, sometimes any JSON at all. */
export const field = (plausible: fc.Arbitrary<Json>): fc.Arbitrary<Json> =>
  fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 1, arbitrary: anyJson });

/** An object from optional named fields, in shuffled order, sometimes with extra keys. */
export function objectOf(fields: Record<string, fc.Arbitrary<Json>>, extraKeys: readonly string[]) {
  const entries = Object.entries(fields).map(([key, arb]) =>
    fc.option(
      arb.map((value): [string, Json] => [key, value]),
      { nil: undefined, freq: 3 },
    ),
  );
  const noExtras = fc.constant<[string, Json][]>([]);
  const extras =
    extraKeys.length === 0
      ? noExtras
      : fc.oneof(
          { weight: 6, arbitrary: noExtras },
          {
            weight: 1,
            arbitrary: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...extraKeys), oddString), anyJson), {
              minLength: 1,
              maxLength: 2,
            }),
          },
        );
  return fc
    .tuple(fc.tuple(...entries), extras)
    .chain(([present, extra]) => {
      const all = [...present.filter((entry) => entry !== undefined), ...extra];
      return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
    })
    .map(obj);
}

/** Text that is not JSON (or is, by accident: the tests parse it to know). */
export const notJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '{"name":',
    '{"name":"x",}',
    "{'name':'x'}",
    '[1,]',
    'nul',
    'NaN',
    'Infinity',
    '\ufeff{"name":"x"}',
    '{"name":"\\u00"}',
    '{"name":"x"}}',
    '{"name":"x"} trailing',
    '{"name":01}',
  ),
  fc.string({ maxLength: 40 }),
);

/**
 * A whole request body: a valid object with odd but allowed content, a field-wise plausible object (each field
 * maybe valid, maybe not), any JSON at all, or text that is not JSON.
 */
export function bodyText(valid: fc.Arbitrary<Json>, plausible: fc.Arbitrary<Json>): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 4, arbitrary: valid.map(writeJson) },
      { weight: 4, arbitrary: plausible.map(writeJson) },
      { weight: 1, arbitrary: anyJson.map(writeJson) },
      { weight: 1, arbitrary: notJson },
    )
    .map(wellFormed);
}

const codePoints = (value: string) => [...value].length;

// Values the contract allows, chosen to be awkward: odd Unicode, exact limits, extreme numbers.

const validName = fc.oneof(
  fc
    .oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }))
    .filter((n) => codePoints(n.trim()) >= 1 && codePoints(n.trim()) <= 200),
  fc.constantFrom(
    'n'.repeat(200),
    `  ${'n'.repeat(200)}  `,
    '😀'.repeat(200),
    '\u200b',
    'שלום עולם',
    '\u202eevil\u202c',
    '\ud800 lone',
    'a\u0000b',
    '👩‍👩‍👧‍👦',
    'fuzz anchor boot',
  ),
);
const validDescription = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', 'd'.repeat(5000), 'é'.repeat(5000), '😀'.repeat(5000), 'Waterproof boot [2] for rain.'),
);
const validTag = fc.oneof(
  fc.stringMatching(/^[a-zA-Z0-9-]{1,50}$/),
  fc.constantFrom('outdoor', 'OUTDOOR', 'fuzz', 'rain', '-', 'x'.repeat(50), '\u212a'),
);
const validTags = fc
  .uniqueArray(validTag, { maxLength: 20, selector: (tag) => tag.toLowerCase() })
  .map((tags): Json => tags);
const validKey = fc.oneof(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,63}$/),
  fc.constantFrom(
    'brand',
    'size',
    'light',
    'A',
    'k'.repeat(64),
    'toString',
    'hasOwnProperty',
    'valueOf',
    'constructor',
    'prototype',
  ),
);
const validValue: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('v'.repeat(500), '😀'.repeat(500), 'acme', ''),
  oddNumber.filter((n) => Number.isFinite(Number(n.$num))),
  fc.boolean(),
);
const validAttributes = fc
  .uniqueArray(fc.tuple(validKey, validValue), { maxLength: 20, selector: ([key]) => key })
  .map(obj);

/** An object with each named field present or not, and nothing else. */
const optionalFields = (fields: Record<string, fc.Arbitrary<Json>>) => objectOf(fields, []);

const validWrite = fc
  .tuple(
    validName,
    optionalFields({ description: validDescription, tags: validTags, attributes: validAttributes }),
  )
  .map(([name, rest]) => obj([['name', name], ...rest.$obj]));

const validPatch = optionalFields({
  name: validName,
  description: fc.oneof(validDescription, fc.constant(null)),
  tags: fc.oneof(validTags, fc.constant(null)),
  attributes: fc.oneof(
    fc.constant(null),
    fc
      .uniqueArray(fc.tuple(validKey, fc.oneof(validValue, fc.constant(null))), {
        maxLength: 6,
        selector: ([key]) => key,
      })
      .map(obj),
  ),
});

// Field values that are near the contract's rules and limits, on either side.

const tagLike = fc.oneof(
  fc.constantFrom(
    'outdoor',
    'Outdoor',
    'rain',
    'fuzz',
    'a-b',
    '-',
    'x'.repeat(50),
    'x'.repeat(51),
    'a b',
    'ü',
  ),
  oddString,
);
const countedTags = fc.integer({ min: 18, max: 22 }).map((n) => Array.from({ length: n }, (_, i) => `t${i}`));
export const plausibleTags: fc.Arbitrary<Json> = fc.oneof(fc.array(tagLike, { maxLength: 5 }), countedTags);

export const attributeKey = fc.oneof(
  fc.constantFrom(
    'brand',
    'size',
    'light',
    'color',
    'A',
    'k'.repeat(64),
    'k'.repeat(65),
    '9x',
    '_a',
    'a-b',
    'a b',
    'constructor',
    'prototype',
    '__proto__',
    'toString',
  ),
  oddString,
);
const attributeValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: oddString },
  { weight: 3, arbitrary: oddNumber },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: anyJson },
);
const countedAttributes = fc
  .integer({ min: 18, max: 22 })
  .map((n) => obj(Array.from({ length: n }, (_, i): [string, Json] => [`k${i}`, num(String(i))])));
export const plausibleAttributes: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.tuple(attributeKey, attributeValue), { maxLength: 5 }).map(obj) },
  { weight: 1, arbitrary: countedAttributes },
);

export const plausibleName: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: oddString },
  { weight: 1, arbitrary: fc.constantFrom('Trail Boot', '  padded boot  ', 'fuzz anchor boot') },
);

const WRITE_EXTRA = ['id', 'version', 'createdAt', 'updatedAt', '__proto__', 'constructor', 'Name', 'tag'];

/** Create and replace bodies. */
export const itemWriteBody = bodyText(
  validWrite,
  objectOf(
    {
      name: field(plausibleName),
      description: field(oddString),
      tags: field(plausibleTags),
      attributes: field(plausibleAttributes),
    },
    WRITE_EXTRA,
  ),
);

/** Merge patch bodies: as writes, with `null` for any field now and then. */
const orNull = (arb: fc.Arbitrary<Json>) =>
  fc.oneof({ weight: 5, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) });
export const itemPatchBody = bodyText(
  validPatch,
  objectOf(
    {
      name: field(orNull(plausibleName)),
      description: field(orNull(oddString)),
      tags: field(orNull(plausibleTags)),
      attributes: field(orNull(plausibleAttributes)),
    },
    WRITE_EXTRA,
  ),
);

const WORDS = ['boot', 'fuzz', 'anchor', 'outdoor', 'rain', 'jacket', 'waterproof', 'the', 'of', '[1]', '😀'];
const validQuery = (max: number) =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((w) => w.join(' ')),
    },
    {
      weight: 2,
      arbitrary: fc
        .string({ unit: 'binary', minLength: 1, maxLength: 30 })
        .filter((q) => codePoints(q.trim()) >= 1),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('b'.repeat(max), ` ${'b '.repeat(max / 2 - 1)}b `, '😀'.repeat(max)),
    },
  );
const queryText = (max: number) =>
  fc.oneof(
    { weight: 3, arbitrary: oddString },
    { weight: 3, arbitrary: validQuery(max) },
    { weight: 1, arbitrary: fc.constantFrom('b'.repeat(max + 1), '😀'.repeat(max + 1), '   ') },
  );
const smallInt = (min: number, max: number) => fc.integer({ min, max }).map((n) => num(String(n)));
const validFilter = optionalFields({
  tags: fc
    .array(fc.oneof(validTag, fc.constantFrom('outdoor', 'fuzz')), { maxLength: 3 })
    .map((t): Json => t),
  attributes: fc.oneof(
    fc.constantFrom(
      obj([['brand', 'acme']]),
      obj([['size', num('3')]]),
      obj([
        ['light', true],
        ['brand', 'acme'],
      ]),
      obj([['size', num('3.0')]]),
    ),
    validAttributes,
  ),
});
const plausibleFilter = field(
  objectOf({ tags: field(plausibleTags), attributes: field(plausibleAttributes) }, ['tag', 'attribute']),
);
const score = fc.double({ min: 0, max: 4, noNaN: true }).map((n) => num(String(n)));

/** `POST /retrieve` bodies. */
export const retrieveBody = bodyText(
  fc
    .tuple(validQuery(500), optionalFields({ topK: smallInt(1, 50), filter: validFilter, minScore: score }))
    .map(([query, rest]) => obj([['query', query], ...rest.$obj])),
  objectOf(
    {
      query: field(queryText(500)),
      topK: field(fc.oneof(smallInt(-1, 52), oddNumber)),
      filter: plausibleFilter,
      minScore: field(fc.oneof(score, oddNumber)),
    },
    ['k', 'top_k', 'limit'],
  ),
);

const temperature = fc.double({ min: 0, max: 1, noNaN: true }).map((n) => num(String(n)));

/** `POST /generate` bodies. */
export const generateBody = bodyText(
  fc
    .tuple(
      validQuery(2000),
      optionalFields({
        topK: smallInt(1, 20),
        filter: validFilter,
        maxTokens: smallInt(1, 2048),
        temperature,
      }),
    )
    .map(([query, rest]) => obj([['query', query], ...rest.$obj])),
  objectOf(
    {
      query: field(queryText(2000)),
      topK: field(fc.oneof(smallInt(-1, 22), oddNumber)),
      filter: plausibleFilter,
      maxTokens: field(fc.oneof(smallInt(-1, 2050), oddNumber)),
      temperature: field(
        fc.oneof(
          fc.double({ min: -0.1, max: 1.1, noNaN: true }).map((n) => num(String(n))),
          oddNumber,
        ),
      ),
    },
    ['model', 'system', 'prompt', 'stream'],
  ),
);
