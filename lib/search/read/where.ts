/**
 * Evaluates `where` filter expressions (contract §8.1) on an item; `where-schema.ts` validates them.
 *
 * `equals`/`notEquals` compare exactly, type included (`1` is not `"1"`); `notEquals` and `notIn` are the
 * negations of `equals` and `in`, so they match an item that lacks the attribute or holds a value of another
 * type. The ordering operators compare two numbers numerically or two strings by code points, and nothing else.
 * `startsWith` and `stringContains` apply to strings, case-sensitively, matching whole code points.
 */
import type { Item } from '../../items/schema.ts';
import { ATTRIBUTE_PREFIX, type WhereExpression } from './where-schema.ts';

type Scalar = string | number | boolean;

/** The item's value for a key, or undefined when the item has no such attribute. */
function fieldValue(item: Item, key: string): Scalar | undefined {
  if (key.startsWith(ATTRIBUTE_PREFIX)) {
    const name = key.slice(ATTRIBUTE_PREFIX.length);
    return Object.hasOwn(item.attributes, name) ? item.attributes[name] : undefined;
  }
  switch (key) {
    case 'id':
      return item.id;
    case 'name':
      return item.name;
    case 'description':
      return item.description;
    case 'createdAt':
      return item.createdAt;
    case 'updatedAt':
      return item.updatedAt;
    default:
      return undefined;
  }
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * Compares strings by code points (UTF-16 order differs for characters above U+FFFF, e.g. U+FF5E < U+1F600).
 * At the first differing unit, a unit just after a shared high surrogate belongs to a pair on either side that has
 * one, so the comparison steps back to read whole code points.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === length) return a.length - b.length;
  if (i > 0 && isHigh(a.charCodeAt(i - 1)) && (isLow(a.charCodeAt(i)) || isLow(b.charCodeAt(i)))) i--;
  return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
}

/** Same type and same value: `1` is not `"1"`, `true` is not `1`. */
const same = (field: Scalar | undefined, value: Scalar) => field === value;

/** Order of a field against a value of the same type; undefined for a missing field or a type mismatch. */
function order(field: Scalar | undefined, value: string | number): number | undefined {
  if (typeof field === 'number' && typeof value === 'number')
    return field < value ? -1 : field > value ? 1 : 0;
  if (typeof field === 'string' && typeof value === 'string') return compareCodePoints(field, value);
  return undefined;
}

/** A cut of `haystack` at `at` that falls between the two halves of a surrogate pair. */
const splitsPair = (haystack: string, at: number) =>
  at > 0 && isHigh(haystack.charCodeAt(at - 1)) && isLow(haystack.charCodeAt(at));

/**
 * True when `needle` occurs in `haystack` as a run of whole code points. A needle that starts or ends with a lone
 * surrogate could otherwise match half of a pair.
 */
function contains(haystack: string, needle: string): boolean {
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    if (!splitsPair(haystack, at) && !splitsPair(haystack, at + needle.length)) return true;
  }
  return false;
}

const startsWith = (haystack: string, needle: string) =>
  haystack.startsWith(needle) && !splitsPair(haystack, needle.length);

/** True when the item satisfies the expression (contract §8.1; the rules in the module comment). */
export function matchesWhere(item: Item, expression: WhereExpression): boolean {
  const e = expression;
  const ordered = (leaf: { key: string; value: string | number }, accept: (order: number) => boolean) => {
    const result = order(fieldValue(item, leaf.key), leaf.value);
    return result !== undefined && accept(result);
  };
  if (e.andAll) return e.andAll.every((child) => matchesWhere(item, child));
  if (e.orAll) return e.orAll.some((child) => matchesWhere(item, child));
  if (e.listContains) return item.tags.includes(e.listContains.value);
  if (e.equals) return same(fieldValue(item, e.equals.key), e.equals.value);
  if (e.notEquals) return !same(fieldValue(item, e.notEquals.key), e.notEquals.value);
  if (e.in) {
    const field = fieldValue(item, e.in.key);
    return e.in.value.some((value) => same(field, value));
  }
  if (e.notIn) {
    const field = fieldValue(item, e.notIn.key);
    return !e.notIn.value.some((value) => same(field, value));
  }
  if (e.greaterThan) return ordered(e.greaterThan, (c) => c > 0);
  if (e.greaterThanOrEquals) return ordered(e.greaterThanOrEquals, (c) => c >= 0);
  if (e.lessThan) return ordered(e.lessThan, (c) => c < 0);
  if (e.lessThanOrEquals) return ordered(e.lessThanOrEquals, (c) => c <= 0);
  if (e.startsWith) {
    const field = fieldValue(item, e.startsWith.key);
    return typeof field === 'string' && startsWith(field, e.startsWith.value);
  }
  if (e.stringContains) {
    const field = fieldValue(item, e.stringContains.key);
    return typeof field === 'string' && contains(field, e.stringContains.value);
  }
  return false;
}
