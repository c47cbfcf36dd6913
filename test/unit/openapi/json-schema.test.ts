import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { componentSchemas } from '../../../lib/openapi/json-schema.ts';
import { lowercaseInputPattern } from '../../../lib/openapi/lowercase-pattern.ts';
import { distinctItems, isPlainObject, maxChars, maxKeys, minChars } from '../../../lib/schema/primitives.ts';

describe('componentSchemas reads limits as data', () => {
  it.each([1, 2, 200, 500, 5000, 65_535])(
    'converts minChars(%i) and maxChars(%i) to code-point lengths',
    (bound) => {
      const Text = v.pipe(v.string(), minChars(bound, 'short'), maxChars(bound, 'long'));
      expect(componentSchemas({ Text }).Text).toStrictEqual({
        type: 'string',
        minLength: bound,
        maxLength: bound,
      });
    },
  );

  it('converts distinct items, a count of keys and the plain-object guard', () => {
    const Tags = v.pipe(v.array(v.string()), distinctItems('repeats'));
    const Entries = v.pipe(v.custom<Record<string, unknown>>(isPlainObject), maxKeys(20, 'too many'));
    expect(componentSchemas({ Tags, Entries })).toStrictEqual({
      Tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
      Entries: { type: 'object', maxProperties: 20 },
    });
  });

  it('converts a guarded object to its declared type, with the description that states the rule', () => {
    const small = v.custom<object>((o) => isPlainObject(o) && Object.keys(o).length < 3, 'too large');
    const Small = v.pipe(
      Object.assign(small, { jsonSchema: { type: 'object' } }),
      v.description('fewer than 3 keys'),
    );
    expect(componentSchemas({ Small, Again: Small })).toStrictEqual({
      Small: { type: 'object', description: 'fewer than 3 keys' },
      Again: { type: 'object', description: 'fewer than 3 keys' },
    });
    expect(v.safeParse(Small, { a: 1, b: 2, c: 3 }).success).toBe(false);
    expect(v.safeParse(Small, [1]).success).toBe(false);
    expect(v.safeParse(Small, { a: 1 }).success).toBe(true);
  });

  it('says a trimmed text of at least one character has a non-space character', () => {
    const Name = v.pipe(v.string(), v.trim(), minChars(1, 'empty'));
    expect(componentSchemas({ Name }).Name).toStrictEqual({ type: 'string', minLength: 1, pattern: '\\S' });
  });
});

describe('lowercaseInputPattern', () => {
  it.each([
    ['^[a-z0-9-]{1,50}$', '^[a-zA-Z0-9-]{1,50}$'],
    ['^ab\\d+$', '^[aA][bB]\\d+$'],
    ['^[^x]\\s$', '^[^xX]\\s$'],
    ['^(?:a|b)$', '^(?:[aA]|[bB])$'],
  ])('%s → %s', (source, expected) => {
    expect(lowercaseInputPattern(source)).toBe(expected);
  });

  it.each(['^[A-Z]$', '^\\p{L}$', '^é$', '^[0-z]$', '^(?<name>a)$'])('refuses %s', (source) => {
    expect(() => lowercaseInputPattern(source)).toThrow(/Cannot describe/);
  });
});

describe('componentSchemas', () => {
  it('refuses to build a document that would drop a check it cannot describe', () => {
    const Starts = v.pipe(
      v.string(),
      v.check((s) => s.startsWith('a'), 'must start with a'),
    );
    expect(() => componentSchemas({ Starts })).toThrow('The check "must start with a" cannot be described');
    expect(() => componentSchemas({ When: v.date() })).toThrow('The "date" schema cannot be described');
    const Count = v.pipe(
      v.custom<Record<string, unknown>>(isPlainObject),
      v.check((o) => Object.keys(o).length <= 20, 'at most 20 keys'),
    );
    expect(() => componentSchemas({ Count })).toThrow('The check "at most 20 keys" cannot be described');
    const Guard = v.custom<object>((x) => typeof x === 'object' && x !== null, 'an object');
    expect(() => componentSchemas({ Guard })).toThrow(
      'cannot be described in the OpenAPI document: no declared type',
    );
  });
});
