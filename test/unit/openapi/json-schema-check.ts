// A small JSON Schema (2020-12) validator for the keywords the OpenAPI document uses. It throws on any other
// keyword, so a schema it does not understand can never pass by being ignored.

const ANNOTATIONS = new Set(['description', 'default', 'examples', 'format', 'title']);
const KEYWORDS = new Set([
  '$ref',
  'type',
  'const',
  'enum',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'anyOf',
  'allOf',
  'not',
]);

type Schema = boolean | { [keyword: string]: unknown };
type Resolve = (ref: string) => unknown;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const asSchema = (value: unknown): Schema => {
  if (typeof value === 'boolean' || isObject(value)) return value;
  throw new Error(`not a schema: ${JSON.stringify(value)}`);
};

const numbers = (value: unknown): number => {
  if (typeof value !== 'number') throw new Error(`expected a number keyword, got ${JSON.stringify(value)}`);
  return value;
};

const list = (value: unknown): unknown[] => {
  if (!Array.isArray(value)) throw new Error(`expected an array keyword, got ${JSON.stringify(value)}`);
  return value;
};

const TYPES: Record<string, (value: unknown) => boolean> = {
  object: isObject,
  array: Array.isArray,
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  integer: (value) => Number.isInteger(value),
  boolean: (value) => typeof value === 'boolean',
  null: (value) => value === null,
};

/** True when `value` is valid against `schema`; `resolve` looks up `$ref`s. */
export function isValid(schemaValue: unknown, value: unknown, resolve: Resolve): boolean {
  const schema = asSchema(schemaValue);
  if (typeof schema === 'boolean') return schema;
  const check = (sub: unknown, item: unknown) => isValid(sub, item, resolve);
  for (const keyword of Object.keys(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    if (!KEYWORDS.has(keyword)) throw new Error(`keyword ${keyword} is not supported by this checker`);
    if (!holds(keyword, schema, value, check, resolve)) return false;
  }
  return true;
}

const asObject = (value: unknown): Record<string, unknown> => {
  if (!isObject(value)) throw new Error(`expected an object keyword, got ${JSON.stringify(value)}`);
  return value;
};

function holds(
  keyword: string,
  schema: Record<string, unknown>,
  value: unknown,
  check: (schema: unknown, value: unknown) => boolean,
  resolve: Resolve,
): boolean {
  const argument = schema[keyword];
  const text = typeof value === 'string' ? value : undefined;
  const object = isObject(value) ? value : undefined;
  const array = Array.isArray(value) ? value : undefined;
  const count = typeof value === 'number' ? value : undefined;
  switch (keyword) {
    case '$ref':
      return check(resolve(String(argument)), value);
    case 'type':
      return (Array.isArray(argument) ? argument : [argument]).some((type) => TYPES[String(type)]?.(value));
    case 'const':
      return JSON.stringify(argument) === JSON.stringify(value);
    case 'enum':
      return list(argument).some((option) => JSON.stringify(option) === JSON.stringify(value));
    case 'properties':
      return (
        !object ||
        Object.entries(asObject(argument)).every(
          ([key, sub]) => !Object.hasOwn(object, key) || check(sub, object[key]),
        )
      );
    case 'required':
      return !object || list(argument).every((key) => Object.hasOwn(object, String(key)));
    case 'additionalProperties': {
      const known = new Set(Object.keys(asObject(schema.properties ?? {})));
      return !object || Object.entries(object).every(([k, item]) => known.has(k) || check(argument, item));
    }
    case 'propertyNames':
      return !object || Object.keys(object).every((key) => check(argument, key));
    case 'minProperties':
      return !object || Object.keys(object).length >= numbers(argument);
    case 'maxProperties':
      return !object || Object.keys(object).length <= numbers(argument);
    case 'items':
      return !array || array.every((item) => check(argument, item));
    case 'minItems':
      return !array || array.length >= numbers(argument);
    case 'maxItems':
      return !array || array.length <= numbers(argument);
    case 'uniqueItems':
      return (
        !array ||
        argument !== true ||
        new Set(array.map((item) => JSON.stringify(item))).size === array.length
      );
    case 'minLength':
      return text === undefined || [...text].length >= numbers(argument);
    case 'maxLength':
      return text === undefined || [...text].length <= numbers(argument);
    case 'pattern':
      return text === undefined || new RegExp(String(argument), 'u').test(text);
    case 'minimum':
      return count === undefined || count >= numbers(argument);
    case 'maximum':
      return count === undefined || count <= numbers(argument);
    case 'anyOf':
      return list(argument).some((sub) => check(sub, value));
    case 'allOf':
      return list(argument).every((sub) => check(sub, value));
    case 'not':
      return !check(argument, value);
    default:
      throw new Error(`keyword ${keyword} is not supported by this checker`);
  }
}
