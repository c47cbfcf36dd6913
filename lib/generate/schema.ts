import * as v from 'valibot';
import { integerBetween, jsonObject, queryText } from '../schema/primitives.ts';
import { PassageSchema } from '../search/read/highlight.ts';
import { FilterSchema, SearchOptionsEntries } from '../search/read/schema.ts';

/** `POST /generate` body (contract §6). */
export const GenerateRequestSchema = jsonObject({
  query: queryText(2000),
  topK: v.optional(integerBetween(1, 20), 5),
  filter: v.optional(FilterSchema),
  maxTokens: v.optional(integerBetween(1, 2048), 512),
  temperature: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.minValue(0, 'must be at least 0'),
      v.maxValue(1, 'must be at most 1'),
    ),
    0,
  ),
  ...SearchOptionsEntries,
});
export type GenerateRequest = v.InferOutput<typeof GenerateRequestSchema>;

const count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** `POST /generate` response. */
export const GenerateResponseSchema = v.strictObject({
  query: v.string(),
  answer: v.string(),
  grounded: v.boolean(),
  citations: v.array(
    v.strictObject({
      ref: v.pipe(v.number(), v.integer(), v.minValue(1)),
      itemId: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
      name: v.string(),
      score: v.pipe(v.number(), v.finite()),
      passage: PassageSchema,
    }),
  ),
  model: v.pipe(v.string(), v.minLength(1)),
  stopReason: v.picklist([
    'end_turn',
    'max_tokens',
    'stop_sequence',
    'guardrail_intervened',
    'content_filtered',
  ]),
  usage: v.strictObject({ inputTokens: count, outputTokens: count, totalTokens: count }),
});
export type GenerateResponse = v.InferOutput<typeof GenerateResponseSchema>;
