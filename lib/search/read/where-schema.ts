/**
 * The schema of `where` filter expressions (contract §8.1), the shape of Amazon Bedrock Knowledge Bases'
 * `RetrievalFilter`; `where.ts` evaluates them.
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
import { ATTRIBUTE_KEY, TagSchema } from '../../items/schema.ts';
import { isPlainObject } from '../../schema/primitives.ts';

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
/** How a key names an attribute: `attributes.<key>`. */
export const ATTRIBUTE_PREFIX = 'attributes.';
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
 * rest does. JSON Schema has no keyword for it: the guard declares an object type as data (`jsonSchema`, which the
 * OpenAPI converter reads) and the description states the limit.
 */
export const WhereSchema = v.pipe(
  Object.assign(
    v.custom<Record<string, unknown>>(
      (input) => isPlainObject(input) && leafCount(input, MAX_WHERE_LEAVES) <= MAX_WHERE_LEAVES,
      (issue) =>
        isPlainObject(issue.input)
          ? `must have at most ${MAX_WHERE_LEAVES} leaves in all, has ${leafCount(issue.input)}`
          : 'must be an object with one operator',
    ),
    { jsonSchema: { type: 'object' } },
  ),
  rootLevel,
  v.description(
    'A filter expression in the shape of Amazon Bedrock Knowledge Bases `RetrievalFilter`: a leaf ' +
      '`{ "<operator>": { "key": K, "value": V } }` or a composite `{ "andAll": [...] }` / `{ "orAll": [...] }` ' +
      `of ${MIN_CHILDREN}-${MAX_CHILDREN} expressions; at most ${MAX_WHERE_DEPTH} composites nested, at most ` +
      `${MAX_WHERE_LEAVES} leaves in all.`,
  ),
);

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
