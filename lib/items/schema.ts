import * as v from 'valibot';
import {
  distinctItems,
  isPlainObject,
  jsonObject,
  maxChars,
  maxKeys,
  minChars,
} from '../schema/primitives.ts';
import { positiveIntegerPattern, SAFE_POSITIVE_INTEGER } from '../validation.ts';

// lib/search/read/highlight.ts still takes these two from here; lib/schema/primitives.ts is their home.
export { charCount, maxChars } from '../schema/primitives.ts';

/**
 * An item's limits (contract §2), declared once: the schemas below carry them as data (valibot's actions and
 * lib/schema's described checks), and the OpenAPI document is converted from those schemas.
 */
export const ITEM_LIMITS = {
  nameChars: 200,
  descriptionChars: 5000,
  tags: 20,
  tagChars: 50,
  attributes: 20,
  attributeKeyChars: 64,
  attributeValueChars: 500,
} as const;
const L = ITEM_LIMITS;

export const NameSchema = v.pipe(
  v.string('must be a string'),
  v.trim(),
  minChars(1, 'must not be empty'),
  maxChars(L.nameChars, `must be at most ${L.nameChars} characters`),
);
export const DescriptionSchema = v.pipe(
  v.string('must be a string'),
  maxChars(L.descriptionChars, `must be at most ${L.descriptionChars} characters`),
);
export const TagSchema = v.pipe(
  v.string('must be a string'),
  v.toLowerCase(),
  v.regex(new RegExp(`^[a-z0-9-]{1,${L.tagChars}}$`), `must be 1-${L.tagChars} characters of a-z, 0-9 and -`),
);
export const TagsSchema = v.pipe(
  v.array(TagSchema, 'must be an array of strings'),
  v.maxLength(L.tags, `must have at most ${L.tags} tags`),
  distinctItems('must not repeat a tag'),
);
export const ATTRIBUTE_KEY = new RegExp(`^[A-Za-z][A-Za-z0-9_]{0,${L.attributeKeyChars - 1}}$`);
const ATTRIBUTE_KEY_MESSAGE = `key must match ${ATTRIBUTE_KEY.source}`;
export const AttributeValueSchema = v.union(
  [
    v.pipe(
      v.string(),
      maxChars(L.attributeValueChars, `must be at most ${L.attributeValueChars} characters`),
    ),
    v.pipe(v.number(), v.finite()),
    v.boolean(),
  ],
  `must be a string of at most ${L.attributeValueChars} characters, a finite number or a boolean`,
);

/** The entries step of an attribute map carries its rules, so the OpenAPI document can describe it. */
export interface AttributeEntries<T extends v.GenericSchema>
  extends v.RawTransformAction<Record<string, unknown>, Record<string, v.InferOutput<T>>> {
  readonly keyPattern: RegExp;
  readonly valueSchema: T;
}

/**
 * An attribute map: a plain object whose every own key matches ATTRIBUTE_KEY and whose every value passes
 * `value`, with the contract's messages. valibot's `record` would silently drop the keys `constructor` and
 * `prototype` (its guard against prototype pollution) although both match the key rule, so the entries are checked
 * here and copied as own properties of a fresh object; `__proto__` fails the key rule, so nothing reaches a
 * prototype.
 */
export const attributeMap = <T extends v.GenericSchema>(value: T) => {
  const entries: AttributeEntries<T> = {
    ...v.rawTransform<Record<string, unknown>, Record<string, v.InferOutput<T>>>(
      ({ dataset, addIssue, NEVER }) => {
        const input = dataset.value;
        const output: Record<string, v.InferOutput<T>> = {};
        for (const key of Object.keys(input)) {
          const at = { type: 'object', origin: 'value', input, key, value: input[key] } as const;
          if (!ATTRIBUTE_KEY.test(key)) {
            addIssue({ message: ATTRIBUTE_KEY_MESSAGE, path: [{ ...at, origin: 'key' }] });
            continue;
          }
          const result = v.safeParse(value, input[key]);
          if (!result.success) {
            for (const issue of result.issues)
              addIssue({ message: issue.message, path: [at, ...(issue.path ?? [])] });
            continue;
          }
          Object.defineProperty(output, key, {
            value: result.output,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return dataset.issues ? NEVER : output;
      },
    ),
    keyPattern: ATTRIBUTE_KEY,
    valueSchema: value,
  };
  return v.pipe(v.custom<Record<string, unknown>>(isPlainObject, 'must be an object'), entries);
};

export const AttributesSchema = v.pipe(
  attributeMap(AttributeValueSchema),
  maxKeys(L.attributes, `must have at most ${L.attributes} keys`),
);

/** The writable fields, as sent to create and replace; omitted fields take their defaults. */
export const ItemWriteSchema = jsonObject({
  name: NameSchema,
  description: v.optional(DescriptionSchema, ''),
  tags: v.optional(TagsSchema, []),
  attributes: v.optional(AttributesSchema, {}),
});
export type ItemWrite = v.InferOutput<typeof ItemWriteSchema>;
export type AttributeValue = v.InferOutput<typeof AttributeValueSchema>;

/** A JSON Merge Patch (RFC 7396) of the writable fields; `null` resets a field, `"name": null` is refused. */
export const ItemPatchSchema = jsonObject({
  name: v.optional(NameSchema),
  description: v.optional(v.nullable(DescriptionSchema)),
  tags: v.optional(v.nullable(TagsSchema)),
  attributes: v.optional(v.nullable(attributeMap(v.nullable(AttributeValueSchema)))),
});
export type ItemPatch = v.InferOutput<typeof ItemPatchSchema>;

export const ItemIdSchema = v.pipe(
  v.number(),
  v.safeInteger('must be an integer'),
  v.minValue(1, 'must be at least 1'),
);

const TimestampSchema = v.pipe(v.string(), v.isoTimestamp());

/** A whole item, as every response carries it and as it is read back from the table. */
export const ItemSchema = v.strictObject({
  id: ItemIdSchema,
  name: NameSchema,
  description: DescriptionSchema,
  tags: TagsSchema,
  attributes: AttributesSchema,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  version: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
});
export type Item = v.InferOutput<typeof ItemSchema>;

export const ItemListSchema = v.array(ItemSchema);

/** `item_id` path parameter: a positive decimal integer within the safe range, nothing else. */
export const ItemPathSchema = v.object({
  item_id: v.pipe(
    v.string('is required'),
    v.regex(
      new RegExp(`^${SAFE_POSITIVE_INTEGER}$`),
      `must be a positive integer, at most ${Number.MAX_SAFE_INTEGER}`,
    ),
    v.transform(Number),
  ),
});

export const DEFAULT_PAGE_SIZE = 100;
/**
 * The largest page, declared once: the pattern `limit` is validated with spells exactly 1 to it, and the OpenAPI
 * document states that pattern.
 */
export const MAX_PAGE_SIZE = 100;
const PAGE_SIZE_MESSAGE = `must be an integer from 1 to ${MAX_PAGE_SIZE}`;

/** `GET /items` query: `limit` 1 to MAX_PAGE_SIZE (default DEFAULT_PAGE_SIZE) and an opaque `cursor`. */
export const ListQuerySchema = v.object({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(new RegExp(`^${positiveIntegerPattern(String(MAX_PAGE_SIZE))}$`), PAGE_SIZE_MESSAGE),
      v.transform(Number),
    ),
    String(DEFAULT_PAGE_SIZE),
  ),
  cursor: v.optional(
    v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(512, 'is too long')),
  ),
});
