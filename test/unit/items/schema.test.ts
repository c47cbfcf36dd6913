import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.ts';
import {
  ItemPatchSchema,
  ItemPathSchema,
  ItemWriteSchema,
  ListQuerySchema,
} from '../../../lib/items/schema.ts';
import { parseOrReject } from '../../../lib/validation.ts';

const details = (schema: v.GenericSchema, value: unknown) => {
  try {
    parseOrReject(schema, value);
  } catch (error) {
    if (error instanceof InvalidInputError) return error.problems;
    throw error;
  }
  throw new Error('expected a validation error');
};

describe('ItemWriteSchema', () => {
  it('fills defaults, trims the name and lower-cases tags', () => {
    expect(v.parse(ItemWriteSchema, { name: '  Trail Boot ', tags: ['Outdoor', 'BOOTS-2'] })).toStrictEqual({
      name: 'Trail Boot',
      description: '',
      tags: ['outdoor', 'boots-2'],
      attributes: {},
    });
  });

  it('counts characters as code points', () => {
    expect(v.parse(ItemWriteSchema, { name: '😀'.repeat(200) }).name).toBe('😀'.repeat(200));
    expect(details(ItemWriteSchema, { name: '😀'.repeat(201) })).toStrictEqual([
      { path: 'name', message: 'must be at most 200 characters' },
    ]);
  });

  it.each([
    [{ name: '   ' }, 'name', 'must not be empty'],
    [{ name: 5 }, 'name', 'must be a string'],
    [{ name: 'x', description: 'd'.repeat(5001) }, 'description', 'must be at most 5000 characters'],
    [{ name: 'x', tags: ['ok', 'no spaces'] }, 'tags.1', 'must be 1-50 characters of a-z, 0-9 and -'],
    [{ name: 'x', tags: ['a', 'A'] }, 'tags', 'must not repeat a tag'],
    [{ name: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags', 'must have at most 20 tags'],
    [{ name: 'x', tags: ['t'.repeat(51)] }, 'tags.0', 'must be 1-50 characters of a-z, 0-9 and -'],
    [
      { name: 'x', attributes: { '1bad': 1 } },
      'attributes.1bad',
      'key must match ^[A-Za-z][A-Za-z0-9_]{0,63}$',
    ],
    [
      { name: 'x', attributes: { a: null } },
      'attributes.a',
      'must be a string of at most 500 characters, a finite number or a boolean',
    ],
    [
      { name: 'x', attributes: { a: { nested: 1 } } },
      'attributes.a',
      'must be a string of at most 500 characters, a finite number or a boolean',
    ],
    [{ name: 'x', attributes: [] }, 'attributes', 'must be an object'],
    [{ name: 'x', id: 3 }, 'id', 'is not an accepted field'],
    [{ name: 'x', version: 3 }, 'version', 'is not an accepted field'],
    [{ name: 'x', createdAt: 'now' }, 'createdAt', 'is not an accepted field'],
    [['x'], 'body', 'must be an object'],
  ])('refuses %j at %s', (body, path, message) => {
    expect(details(ItemWriteSchema, body)).toContainEqual({ path, message });
  });

  it('refuses a string attribute over 500 characters and a non-finite number', () => {
    expect(
      details(ItemWriteSchema, {
        name: 'x',
        attributes: { a: 's'.repeat(501), b: Number.POSITIVE_INFINITY },
      }),
    ).toHaveLength(2);
  });

  it('refuses more than 20 attributes', () => {
    const attributes = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
    expect(details(ItemWriteSchema, { name: 'x', attributes })).toStrictEqual([
      { path: 'attributes', message: 'must have at most 20 keys' },
    ]);
  });

  it('refuses the attribute key __proto__ by the key rule', () => {
    const body = JSON.parse('{"name":"x","attributes":{"__proto__":"v"}}');
    expect(details(ItemWriteSchema, body)).toStrictEqual([
      { path: 'attributes.__proto__', message: 'key must match ^[A-Za-z][A-Za-z0-9_]{0,63}$' },
    ]);
  });

  it.each(['constructor', 'prototype'])(
    'keeps the attribute key %s (it matches the key rule) as an own property',
    (key) => {
      const body = JSON.parse(`{"name":"x","attributes":{"${key}":"v","after":1}}`);
      const { attributes } = v.parse(ItemWriteSchema, body);
      expect(Object.entries(attributes)).toStrictEqual([
        [key, 'v'],
        ['after', 1],
      ]);
      expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
      expect(JSON.stringify(attributes)).toBe(`{"${key}":"v","after":1}`);
      expect(details(ItemWriteSchema, JSON.parse(`{"name":"x","attributes":{"${key}":[]}}`))).toStrictEqual([
        {
          path: `attributes.${key}`,
          message: 'must be a string of at most 500 characters, a finite number or a boolean',
        },
      ]);
    },
  );

  it('refuses __proto__ as an unknown top-level key', () => {
    expect(details(ItemWriteSchema, JSON.parse('{"name":"x","__proto__":{"admin":true}}'))).toStrictEqual([
      { path: '__proto__', message: 'is not an accepted field' },
    ]);
  });
});

describe('ItemPatchSchema', () => {
  it('accepts nulls for resettable fields', () => {
    expect(
      v.parse(ItemPatchSchema, { description: null, tags: null, attributes: { a: null, b: 1 } }),
    ).toStrictEqual({
      description: null,
      tags: null,
      attributes: { a: null, b: 1 },
    });
  });

  it('refuses "name": null', () => {
    expect(details(ItemPatchSchema, { name: null })).toStrictEqual([
      { path: 'name', message: 'must be a string' },
    ]);
  });
});

describe('ItemPathSchema', () => {
  it('accepts a positive safe integer', () => {
    expect(v.parse(ItemPathSchema, { item_id: '9007199254740991' })).toStrictEqual({
      item_id: 9007199254740991,
    });
  });

  it.each(['abc', '0', '-1', '1.5', '1e3', '99999999999999999999', '9007199254740992', '01', ' 1', ''])(
    'refuses %j',
    (itemId) => {
      expect(details(ItemPathSchema, { item_id: itemId }).at(0)?.path).toBe('item_id');
    },
  );
});

describe('ListQuerySchema', () => {
  it('defaults limit to 100', () => {
    expect(v.parse(ListQuerySchema, {})).toStrictEqual({ limit: 100 });
  });

  it.each(['1', '9', '10', '99', '100'])('reads limit %j as a number', (limit) => {
    expect(v.parse(ListQuerySchema, { limit })).toStrictEqual({ limit: Number(limit) });
  });

  it.each(['0', '101', '110', '200', '999', '1000', '010', '-1', '1.5', 'abc', ''])(
    'refuses limit %j',
    (limit) => {
      expect(details(ListQuerySchema, { limit })).toStrictEqual([
        { path: 'limit', message: 'must be an integer from 1 to 100' },
      ]);
    },
  );
});
