/**
 * `where` filter expressions (contract §8.1): the shape of Amazon Bedrock Knowledge Bases' `RetrievalFilter`.
 *
 * Where the schema reports a problem (paths relative to the expression; the body adds `where.`):
 * - a leaf's key or value: at that field, e.g. `andAll.1.greaterThan.value`;
 * - an unknown operator: at the operator, e.g. `andAll.1.greaterThen`, as for any unknown field;
 * - an object with no operator or with several: at the expression itself, e.g. `andAll.1`;
 * - a composite nested too deeply: at the composite that is one level too deep, e.g.
 *   `andAll.0.andAll.0.andAll.0.andAll.0.andAll.0.orAll`; what it holds is not examined;
 * - more than 50 leaves: at the root, since no one leaf is at fault. The count comes first (on the raw value, a
 *   non-composite counting as a leaf), so an over-long expression is refused before its leaves are examined.
 *
 * Depth counts composites: a leaf alone has depth 0, `{ "andAll": [leaf, leaf] }` depth 1, and at most 5 `andAll`/
 * `orAll` may enclose one another. The schema is built one level at a time, so validation never recurses past
 * that depth however deeply a request nests its JSON.
 *
 * `tags` is a list, so it takes only `listContains`, and `listContains` only `tags`; any other operator on `tags`
 * is refused (the contract names `equals`; the others would be as meaningless on a list).
 */
import * as v from 'valibot';
import { ATTRIBUTE_KEY, type Item, isPlainObject, TagSchema } from '../items/schema.ts';

/** Most `andAll`/`orAll` composites enclosing one another. */
export const MAX_WHERE_DEPTH = 5;
/** Most leaves in one expression. */
export const MAX_WHERE_LEAVES = 50;
/** Children of one composite. */
export const MIN_CHILDREN = 2;
export const MAX_CHILDREN = 10;
/** Values of one `in` or `notIn`. */
export const MAX_IN_VALUES = 50;

const SCALAR_FIELDS = ['id', 'name', 'description', 'createdAt', 'updatedAt'] as const;
const ATTRIBUTE_PREFIX = 'attributes.';
const SCALAR_KEY = new RegExp(
  `^(?:${SCALAR_FIELDS.join('|')}|attributes\\.${ATTRIBUTE_KEY.source.replace(/^\^|\$$/g, '')})$`,
);
const KEY_RULE = `${SCALAR_FIELDS.join(', ')} or ${ATTRIBUTE_PREFIX}<key> (key as for item attributes)`;

/** A key naming a scalar field or an attribute; `tags` gets a message pointing to `listContains`. */
const scalarKey = (operator: string) =>
  v.pipe(
    v.string('must be a string'),
    v.regex(SCALAR_KEY, (issue) =>
      issue.input === 'tags' ? `${operator} does not apply to tags: use listContains` : `must be ${KEY_RULE}`,
    ),
  );

const finiteNumber = v.pipe(v.number(), v.finite('must be a finite number'));
const scalar = v.union([v.string(), finiteNumber, v.boolean()], 'must be a string, a number or a boolean');
const ordered = v.union([v.string(), finiteNumber], 'must be a number or a string');
const scalarList = v.pipe(
  v.array(scalar, `must be an array of 1 to ${MAX_IN_VALUES} values`),
  v.minLength(1, `must have 1 to ${MAX_IN_VALUES} values`),
  v.maxLength(MAX_IN_VALUES, `must have 1 to ${MAX_IN_VALUES} values`),
);

/** A leaf's body `{ "key": K, "value": V }`, every field required, no other field. */
const leafBody = <K extends v.GenericSchema<unknown, string>, V extends v.GenericSchema>(key: K, value: V) =>
  v.pipe(
    v.custom<Record<string, unknown>>(isPlainObject, 'must be an object { "key": …, "value": … }'),
    v.strictObject({ key, value }, (issue) =>
      issue.expected === 'never' ? 'is not an accepted field' : 'is required',
    ),
  );

const LEAF_BODIES = {
  equals: leafBody(scalarKey('equals'), scalar),
  notEquals: leafBody(scalarKey('notEquals'), scalar),
  greaterThan: leafBody(scalarKey('greaterThan'), ordered),
  greaterThanOrEquals: leafBody(scalarKey('greaterThanOrEquals'), ordered),
  lessThan: leafBody(scalarKey('lessThan'), ordered),
  lessThanOrEquals: leafBody(scalarKey('lessThanOrEquals'), ordered),
  in: leafBody(scalarKey('in'), scalarList),
  notIn: leafBody(scalarKey('notIn'), scalarList),
  startsWith: leafBody(scalarKey('startsWith'), v.string('must be a string')),
  stringContains: leafBody(scalarKey('stringContains'), v.string('must be a string')),
  listContains: leafBody(v.literal('tags', 'must be "tags": listContains applies to tags'), TagSchema),
};

const LEAF_ENTRIES = {
  equals: v.exactOptional(LEAF_BODIES.equals),
  notEquals: v.exactOptional(LEAF_BODIES.notEquals),
  greaterThan: v.exactOptional(LEAF_BODIES.greaterThan),
  greaterThanOrEquals: v.exactOptional(LEAF_BODIES.greaterThanOrEquals),
  lessThan: v.exactOptional(LEAF_BODIES.lessThan),
  lessThanOrEquals: v.exactOptional(LEAF_BODIES.lessThanOrEquals),
  in: v.exactOptional(LEAF_BODIES.in),
  notIn: v.exactOptional(LEAF_BODIES.notIn),
  startsWith: v.exactOptional(LEAF_BODIES.startsWith),
  stringContains: v.exactOptional(LEAF_BODIES.stringContains),
  listContains: v.exactOptional(LEAF_BODIES.listContains),
};

/** The operators, leaves then composites, as a client may spell them. */
export const WHERE_OPERATORS = [...Object.keys(LEAF_ENTRIES), 'andAll', 'orAll'] as const;

type Leaves = v.InferOutput<v.StrictObjectSchema<typeof LEAF_ENTRIES, undefined>>;
/** A parsed expression: exactly one of the operators is present. */
export type WhereExpression = Leaves & {
  readonly andAll?: readonly WhereExpression[];
  readonly orAll?: readonly WhereExpression[];
};
type ExpressionSchema = v.GenericSchema<Record<string, unknown>, WhereExpression>;

const ONE_OPERATOR = `must have exactly one operator (${WHERE_OPERATORS.join(', ')})`;

/** An expression whose `andAll` and `orAll` take `children`. */
const expression = (children: v.GenericSchema<unknown, WhereExpression[]>): ExpressionSchema =>
  v.pipe(
    v.custom<Record<string, unknown>>(isPlainObject, 'must be an object with one operator'),
    v.minEntries(1, ONE_OPERATOR),
    v.maxEntries(1, ONE_OPERATOR),
    v.strictObject(
      { ...LEAF_ENTRIES, andAll: v.exactOptional(children), orAll: v.exactOptional(children) },
      (issue) =>
        issue.expected === 'never'
          ? `is not an operator: use one of ${WHERE_OPERATORS.join(', ')}`
          : 'must be an object with one operator',
    ),
  );

/** The children of a composite: 2 to 10 expressions of the next level. */
const composite = (child: ExpressionSchema) =>
  v.pipe(
    v.array(child, `must be an array of ${MIN_CHILDREN} to ${MAX_CHILDREN} expressions`),
    v.minLength(MIN_CHILDREN, `must have ${MIN_CHILDREN} to ${MAX_CHILDREN} expressions`),
    v.maxLength(MAX_CHILDREN, `must have ${MIN_CHILDREN} to ${MAX_CHILDREN} expressions`),
  );

/**
 * The expression schema at each depth (the number of composites enclosing it), built from the deepest up: at the
 * deepest level a composite is refused, so validation never recurses further however deeply the JSON nests.
 */
const levels: ExpressionSchema[] = [
  expression(v.never(`nests too deeply: at most ${MAX_WHERE_DEPTH} andAll/orAll may enclose one another`)),
];
while (levels.length <= MAX_WHERE_DEPTH) {
  const [deeper] = levels;
  if (deeper) levels.unshift(expression(composite(deeper)));
}
const [rootLevel, ...innerLevels] = levels;
if (!rootLevel) throw new Error('unreachable: no expression schema');

/**
 * Leaves of a JSON value read as an expression (anything that is not a composite counts as one), counted without
 * recursion and only as far as `limit + 1`, since the value has not been validated yet.
 */
function leafCount(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let count = 0;
  const pending = [value];
  while (pending.length > 0 && count <= limit) {
    const next = pending.pop();
    const children = isPlainObject(next) ? (next.andAll ?? next.orAll) : undefined;
    if (Array.isArray(children)) for (const child of children) pending.push(child);
    else count++;
  }
  return count;
}

/**
 * A `where` expression (contract §8.1). The leaf limit is checked first, on the raw value: it bounds the work the
 * rest does, and being a `custom` schema rather than a `check`, it leaves the JSON Schema converter an object type
 * (the description states the limit).
 */
export const WhereSchema = v.pipe(
  v.custom<Record<string, unknown>>(
    (input) => isPlainObject(input) && leafCount(input, MAX_WHERE_LEAVES) <= MAX_WHERE_LEAVES,
    (issue) =>
      isPlainObject(issue.input)
        ? `must have at most ${MAX_WHERE_LEAVES} leaves in all, has ${leafCount(issue.input)}`
        : 'must be an object with one operator',
  ),
  rootLevel,
  v.description(
    'A filter expression in the shape of Amazon Bedrock Knowledge Bases `RetrievalFilter`: a leaf ' +
      '`{ "<operator>": { "key": K, "value": V } }` or a composite `{ "andAll": [...] }` / `{ "orAll": [...] }` ' +
      `of ${MIN_CHILDREN}-${MAX_CHILDREN} expressions; at most ${MAX_WHERE_DEPTH} composites nested, at most ` +
      `${MAX_WHERE_LEAVES} leaves in all.`,
  ),
);

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

const text = (field: Scalar | undefined) => (typeof field === 'string' ? field : undefined);

/** True when the item satisfies the expression (contract §8.1). `notEquals` and `notIn` are the negations of
 * `equals` and `in`, so they match an item that lacks the attribute or holds a value of another type. */
export function matchesWhere(item: Item, expression: WhereExpression): boolean {
  const e = expression;
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
  if (e.greaterThan) return (order(fieldValue(item, e.greaterThan.key), e.greaterThan.value) ?? 0) > 0;
  if (e.greaterThanOrEquals) {
    const c = order(fieldValue(item, e.greaterThanOrEquals.key), e.greaterThanOrEquals.value);
    return c !== undefined && c >= 0;
  }
  if (e.lessThan) return (order(fieldValue(item, e.lessThan.key), e.lessThan.value) ?? 0) < 0;
  if (e.lessThanOrEquals) {
    const c = order(fieldValue(item, e.lessThanOrEquals.key), e.lessThanOrEquals.value);
    return c !== undefined && c <= 0;
  }
  if (e.startsWith) {
    const field = text(fieldValue(item, e.startsWith.key));
    return field !== undefined && startsWith(field, e.startsWith.value);
  }
  if (e.stringContains) {
    const field = text(fieldValue(item, e.stringContains.key));
    return field !== undefined && contains(field, e.stringContains.value);
  }
  return false;
}

/**
 * `WhereSchema`'s parts under names, for the OpenAPI document: each nesting level and each leaf body once,
 * referred to where used (inlined, the six levels' two composites each would repeat the levels below 2^5 times).
 */
export const whereComponentSchemas = {
  Where: WhereSchema,
  ...Object.fromEntries(innerLevels.map((level, i) => [`WhereExpressionDepth${i + 1}`, level])),
  ...Object.fromEntries(
    Object.entries(LEAF_BODIES).map(([op, body]) => [`Where${op[0]?.toUpperCase()}${op.slice(1)}`, body]),
  ),
};
