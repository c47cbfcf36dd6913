import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { componentSchemas } from '../../../lib/openapi/json-schema.ts';
import { lowercaseInputPattern } from '../../../lib/openapi/lowercase-pattern.ts';
import {
  arrayKeywords,
  objectKeywords,
  stringLengthKeywords,
  typeGuardKeywords,
} from '../../../lib/openapi/probes.ts';
import { maxChars, minChars } from '../../../lib/schema/primitives.ts';

const predicate = (action: { requirement: (input: string) => boolean }) => (input: unknown) =>
  typeof input === 'string' && action.requirement(input);

describe('stringLengthKeywords', () => {
  it.each([1, 2, 200, 500, 5000, 65_535])('reads minChars(%i) and maxChars(%i) back', (bound) => {
    expect(stringLengthKeywords(predicate(minChars(bound, 'short')))).toStrictEqual({ minLength: bound });
    expect(stringLengthKeywords(predicate(maxChars(bound, 'long')))).toStrictEqual({ maxLength: bound });
  });

  it('does not take a UTF-16 length check, a two-sided check or any other check for a code-point bound', () => {
    expect(stringLengthKeywords((s) => typeof s === 'string' && s.length <= 10)).toBeUndefined();
    expect(
      stringLengthKeywords((s) => typeof s === 'string' && s.length >= 2 && s.length <= 9),
    ).toBeUndefined();
    expect(stringLengthKeywords((s) => typeof s === 'string' && s.startsWith('a'))).toBeUndefined();
    expect(stringLengthKeywords((s) => typeof s === 'string' && [...s].length % 2 === 0)).toBeUndefined();
    expect(stringLengthKeywords(() => true)).toBeUndefined();
  });
});

describe('objectKeywords', () => {
  it('reads a key count bound and the refused prototype keys', () => {
    expect(
      objectKeywords((o) => typeof o === 'object' && o !== null && Object.keys(o).length <= 20),
    ).toStrictEqual({
      maxProperties: 20,
    });
    expect(
      objectKeywords(
        (o) => typeof o === 'object' && o !== null && !['constructor'].some((k) => Object.hasOwn(o, k)),
      ),
    ).toStrictEqual({ propertyNames: { not: { enum: ['constructor'] } } });
    expect(
      objectKeywords((o) => typeof o === 'object' && o !== null && !Object.hasOwn(o, 'id')),
    ).toBeUndefined();
  });
});

describe('arrayKeywords and typeGuardKeywords', () => {
  it('recognise distinct items and JSON type guards, nothing else', () => {
    expect(arrayKeywords((a) => Array.isArray(a) && new Set(a).size === a.length)).toStrictEqual({
      uniqueItems: true,
    });
    expect(arrayKeywords((a) => Array.isArray(a) && a.length <= 2)).toBeUndefined();
    expect(typeGuardKeywords((x) => typeof x === 'object' && x !== null && !Array.isArray(x))).toStrictEqual({
      type: 'object',
    });
    expect(typeGuardKeywords((x) => typeof x === 'string' || x === null)).toStrictEqual({
      type: ['string', 'null'],
    });
    expect(typeGuardKeywords((x) => typeof x === 'number' && x > 1)).toBeUndefined();
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
  });
});
