import {
  type ConversionConfig,
  type JsonSchema,
  type OverrideActionContext,
  type OverrideSchemaContext,
  toJsonSchema,
  toJsonSchemaDefs,
} from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { isPlainObject } from '../schema/primitives.ts';
import { lowercaseInputPattern } from './lowercase-pattern.ts';

type JsonSchemaDefinition = NonNullable<JsonSchema['propertyNames']>;
/** The JSON keywords a check or a guard declares, e.g. `{ maxLength: 500 }`. */
type Keywords = JsonSchema;

/** Where component schemas live in the document. */
export const SCHEMA_REF = '#/components/schemas/';

/**
 * The converter hands one JSON Schema object along a pipeline, action after action, and the overrides add their
 * keywords to it in place. These remember the steps seen so far on it: a later `regex` or length check has to
 * know whether the input was lowercased or trimmed first.
 */
const lowercased = new WeakSet<JsonSchema>();
const trimmed = new WeakSet<JsonSchema>();
/** Property-name rules from a check, kept until a later `record` in the pipe has set its own key schema. */
const nameRules = new WeakMap<JsonSchema, JsonSchemaDefinition>();

class SchemaConversionError extends Error {
  constructor(what: string, reasons: readonly string[]) {
    super(`${what} cannot be described in the OpenAPI document: ${reasons.join('; ')}`);
    this.name = 'SchemaConversionError';
  }
}

/**
 * The keywords a check or a guard carries as data (`jsonSchema`): lib/schema/primitives.ts's `minChars`,
 * `maxChars`, `maxKeys` and `distinctItems`, and lib/search/read/where-schema.ts's leaf-count guard.
 */
function declaredKeywords(source: object): Keywords | undefined {
  const keywords: unknown = Reflect.get(source, 'jsonSchema');
  return isPlainObject(keywords) ? keywords : undefined;
}

/** Keywords for a `v.check` on a value of the JSON type converted so far. */
function checkKeywords(action: object, schema: JsonSchema): Keywords | undefined {
  const declared = declaredKeywords(action);
  if (!declared) return undefined;
  // "Not empty after trimming" is "has a non-space character"; JSON Schema's \s is JavaScript's trim set.
  const nonBlank = trimmed.has(schema) && declared.minLength === 1 && schema.pattern === undefined;
  return nonBlank ? { ...declared, pattern: '\\S' } : declared;
}

/** Both schemas must hold for a property name: their keywords side by side, or `allOf` when they overlap. */
function bothNames(
  first: JsonSchemaDefinition | undefined,
  second: JsonSchemaDefinition,
): JsonSchemaDefinition {
  if (first === undefined) return second;
  if (typeof first === 'object' && typeof second === 'object') {
    const overlap = Object.keys(first).some((key) => Object.hasOwn(second, key));
    if (!overlap) return { ...first, ...second };
  }
  return { allOf: [first, second] };
}

/** Adds keywords to the schema being built; a `propertyNames` rule is also kept for a `record` that follows. */
function addKeywords(schema: JsonSchema, { propertyNames, ...keywords }: Keywords): void {
  Object.assign(schema, keywords);
  if (propertyNames === undefined) return;
  schema.propertyNames = bothNames(schema.propertyNames, propertyNames);
  nameRules.set(schema, propertyNames);
}

/** Adds keywords for the actions the converter does not know; any other unconvertible action is an error. */
function overrideAction({ valibotAction: action, jsonSchema, errors }: OverrideActionContext): undefined {
  switch (action.type) {
    case 'check': {
      const keywords = checkKeywords(action, jsonSchema);
      const message: unknown = Reflect.get(action, 'message');
      if (!keywords) throw new SchemaConversionError(`The check "${String(message)}"`, ['no known bound']);
      addKeywords(jsonSchema, keywords);
      return;
    }
    case 'to_lower_case':
      lowercased.add(jsonSchema);
      return;
    case 'trim':
      trimmed.add(jsonSchema);
      return;
    case 'regex':
      if (lowercased.has(jsonSchema) && jsonSchema.pattern !== undefined) {
        jsonSchema.pattern = lowercaseInputPattern(jsonSchema.pattern);
      }
      return;
    // JSON has no NaN or Infinity: every JSON number is finite.
    case 'finite':
      return;
    // An attribute map's entries (lib/items/schema.ts): keys by their pattern, values by their schema.
    case 'raw_transform': {
      const keyPattern: unknown = Reflect.get(action, 'keyPattern');
      const valueSchema: unknown = Reflect.get(action, 'valueSchema');
      if (!(keyPattern instanceof RegExp) || typeof valueSchema !== 'object' || valueSchema === null)
        throw new SchemaConversionError('A raw transformation', ['not an attribute map']);
      const { $schema: _, ...values } = toJsonSchema(valueSchema as v.GenericSchema, config('ignore'));
      addKeywords(jsonSchema, { propertyNames: { type: 'string', pattern: keyPattern.source } });
      jsonSchema.additionalProperties = values;
      return;
    }
    default:
      if (errors) throw new SchemaConversionError(`The "${action.type}" action`, errors);
  }
}

const OBJECT: JsonSchema = { type: 'object' };

function overrideSchema({ valibotSchema: schema, jsonSchema, errors }: OverrideSchemaContext) {
  // A record replaces `propertyNames` with its key schema; a rule an earlier check added still holds.
  const names = nameRules.get(jsonSchema);
  if (schema.type === 'record' && names !== undefined) {
    jsonSchema.propertyNames = bothNames(jsonSchema.propertyNames, names);
  }
  if (schema.type === 'custom') {
    const guard: unknown = Reflect.get(schema, 'check');
    if (guard === isPlainObject) return OBJECT;
    const keywords = declaredKeywords(schema);
    if (!keywords)
      throw new SchemaConversionError(`The custom schema "${schema.expects}"`, ['no declared type']);
    // A copy: the converter adds the pipe's other keywords (a description) to what it is given.
    return { ...keywords };
  }
  if (errors) throw new SchemaConversionError(`The "${schema.type}" schema`, errors);
  return undefined;
}

/**
 * Conversion settings. `errorMode: 'ignore'` only lets the converter go on past the constructs the overrides
 * handle (custom checks, `trim`, `toLowerCase`, a `custom` guard piped into an object schema); every other
 * conversion error is raised again by the overrides, so nothing is dropped from the document unnoticed.
 */
const config = (typeMode: 'ignore' | 'input'): ConversionConfig => ({
  target: 'draft-2020-12',
  typeMode,
  errorMode: 'ignore',
  overrideAction,
  overrideSchema,
  overrideRef: ({ referenceId }) => `${SCHEMA_REF}${referenceId}`,
});

/** Named component schemas for bodies, with `$ref`s between them (an item inside a list is a reference). */
export function componentSchemas<T extends Record<string, v.GenericSchema>>(schemas: T) {
  return toJsonSchemaDefs(schemas, config('ignore'));
}

/** A schema for path, query or header values: the strings as they arrive, before any `v.transform(Number)`. */
export function parameterSchema(schema: v.GenericSchema): JsonSchema {
  const { $schema: _, ...rest } = toJsonSchema(schema, config('input'));
  return rest;
}
