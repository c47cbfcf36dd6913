import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  charCount,
  integerBetween,
  isPlainObject,
  jsonObject,
  queryText,
} from '../../../lib/schema/primitives.ts';

const messages = (schema: v.GenericSchema, value: unknown) =>
  v.safeParse(schema, value).issues?.map((issue) => [v.getDotPath(issue) ?? '', issue.message]) ?? [];

describe('schema primitives', () => {
  it('counts characters as code points', () => {
    expect([charCount(''), charCount('é'), charCount('😀'), charCount('a😀b')]).toStrictEqual([0, 1, 1, 3]);
  });

  it('takes only plain objects for objects', () => {
    expect([{}, { a: 1 }].every(isPlainObject)).toBe(true);
    expect([null, [], 'x', 1].some(isPlainObject)).toBe(false);
  });

  it('refuses arrays, missing and extra keys of a JSON object with the contract’s messages', () => {
    const Body = jsonObject({ name: v.string() });
    expect(messages(Body, [])).toStrictEqual([['', 'must be an object']]);
    expect(messages(Body, {})).toStrictEqual([['name', 'is required']]);
    expect(messages(Body, { name: 'x', other: 1 })).toStrictEqual([['other', 'is not an accepted field']]);
  });

  it('bounds integers and query texts with the contract’s messages', () => {
    expect(messages(integerBetween(1, 20), 21)).toStrictEqual([['', 'must be at most 20']]);
    expect(messages(integerBetween(1, 20), 1.5)).toStrictEqual([['', 'must be an integer']]);
    expect(v.parse(queryText(3), ' 😀😀😀 ')).toBe('😀😀😀');
    expect(messages(queryText(3), '   ')).toStrictEqual([['', 'must not be empty']]);
    expect(messages(queryText(3), 'abcd')).toStrictEqual([['', 'must be at most 3 characters']]);
  });
});
