// Generic valibot building blocks with the contract's messages, shared by the items, search and generate schemas.
import * as v from 'valibot';

/** Counts Unicode code points, which is what the contract (and JSON Schema) mean by "characters". */
export const charCount = (value: string): number => {
  let count = 0;
  for (const _ of value) count++;
  return count;
};

/** The JSON Schema keywords that say what a check checks, for the OpenAPI document (lib/openapi). */
export interface CheckKeywords {
  minLength?: number;
  maxLength?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
}

/** A `v.check` that carries its bound as data, as valibot's own actions carry `requirement`. */
export interface DescribedCheck<T> extends v.CheckAction<T, string> {
  readonly jsonSchema: CheckKeywords;
}

const described = <T>(action: v.CheckAction<T, string>, jsonSchema: CheckKeywords): DescribedCheck<T> => ({
  ...action,
  jsonSchema,
});

/** At least `min` characters (code points): valibot's `minLength` counts UTF-16 units. */
export const minChars = (min: number, message: string) =>
  described(
    v.check((s: string) => charCount(s) >= min, message),
    { minLength: min },
  );
/** At most `max` characters (code points): valibot's `maxLength` counts UTF-16 units. */
export const maxChars = (max: number, message: string) =>
  described(
    v.check((s: string) => charCount(s) <= max, message),
    { maxLength: max },
  );
/** At most `max` keys (valibot's `maxEntries` would say the same, at 200 bytes more of every bundle). */
export const maxKeys = <T extends Record<string, unknown>>(max: number, message: string) =>
  described(
    v.check((o: T) => Object.keys(o).length <= max, message),
    { maxProperties: max },
  );
/** No item twice. */
export const distinctItems = <T>(message: string) =>
  described(
    v.check((items: T[]) => new Set(items).size === items.length, message),
    { uniqueItems: true },
  );

/** A JSON object: not null, not an array. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Messages for object schemas: a missing key is required, an extra key is refused, anything else is not an object. */
const objectMessage = (issue: v.BaseIssue<unknown>): string => {
  if (issue.expected === 'never') return 'is not an accepted field';
  if (issue.kind === 'schema' && issue.received === 'undefined' && issue.path?.length) return 'is required';
  return 'must be an object';
};

/** A strict object that also refuses arrays (valibot's object schemas accept them). */
export const jsonObject = <T extends v.ObjectEntries>(entries: T) =>
  v.pipe(
    v.custom<Record<string, unknown>>(isPlainObject, 'must be an object'),
    v.strictObject(entries, objectMessage),
  );

/** An integer from `min` to `max`, with the contract's messages. */
export const integerBetween = (min: number, max: number) =>
  v.pipe(
    v.number('must be a number'),
    v.integer('must be an integer'),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

/** A query text: trimmed, 1 to `max` characters. */
export const queryText = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.trim(),
    minChars(1, 'must not be empty'),
    maxChars(max, `must be at most ${max} characters`),
  );
