import * as v from 'valibot';
import { AttributeValueSchema, attributeMap, ItemSchema, TagSchema } from '../../items/schema.ts';
import { integerBetween, jsonObject, maxKeys, queryText } from '../../schema/primitives.ts';
import { HighlightsSchema } from './highlight.ts';
import { WhereSchema } from './where-schema.ts';

export const FilterSchema = jsonObject({
  tags: v.optional(
    v.pipe(v.array(TagSchema, 'must be an array of strings'), v.maxLength(20, 'must have at most 20 tags')),
  ),
  // The same key rules as item attributes: arrays and reserved keys are refused, never silently dropped.
  attributes: v.optional(
    v.pipe(attributeMap(AttributeValueSchema), maxKeys(20, 'must have at most 20 keys')),
  ),
});
export type Filter = v.InferOutput<typeof FilterSchema>;

/** Contract §8.1, 8.3–8.4: the options that narrow and widen what a query matches (retrieve and generate). */
export const SearchOptionsEntries = {
  where: v.optional(WhereSchema),
  prefix: v.optional(
    v.pipe(
      v.boolean('must be a boolean'),
      v.description(
        'Search as you type (§8.3): the last word of the query (2 characters at least, before stemming) also ' +
          'matches the 50 indexed terms with the most postings that begin with it, each weighted by the share of it ' +
          'typed (typed length ÷ its length), a tenth of that when the word has 4 characters or more and is itself ' +
          'an indexed word (it may be typed in full); the word and its completions score as one term, the best ' +
          'weighted of them (§8.6).',
      ),
    ),
    false,
  ),
  typos: v.optional(
    v.pipe(
      v.picklist([0, 1, 2], 'must be 0, 1 or 2'),
      v.description(
        'Typo tolerance (§8.4): a query term of 4 characters or more also matches indexed terms within this many ' +
          'edits (1 at most for terms of 4–7 characters), at most 20 a word, the closest then the most frequent, ' +
          'weighted 1 / (1 + edits); the word and its corrections score as one term, the best weighted of them (§8.6).',
      ),
    ),
    0,
  ),
};

/** `POST /retrieve` body (contract §5, §8). */
export const RetrieveRequestSchema = jsonObject({
  query: queryText(500),
  topK: v.optional(integerBetween(1, 50), 5),
  filter: v.optional(FilterSchema),
  minScore: v.optional(
    v.pipe(v.number('must be a number'), v.finite(), v.minValue(0, 'must be at least 0')),
    0,
  ),
  ...SearchOptionsEntries,
  highlight: v.optional(
    v.pipe(
      v.boolean('must be a boolean'),
      v.description('Adds `highlights` to each result: the fields that matched and where (§8.2).'),
    ),
    false,
  ),
});
export type RetrieveRequest = v.InferOutput<typeof RetrieveRequestSchema>;

export const ResultSchema = v.strictObject({
  rank: v.pipe(v.number(), v.integer(), v.minValue(1)),
  score: v.pipe(
    v.number(),
    v.finite(),
    v.minValue(0),
    v.description(
      'BM25 (§5), summed over the query’s words. Each word scores as one term (§8.6): the best weighted BM25 among ' +
        'the alternatives the item holds: the word as written (weight 1; for an English word whose stem cut a ' +
        'suffix, the word up to its plural), its stem (1, or 0.5 beside such an exact form, so an item holding the ' +
        'word as written ranks above one holding only another word with its stem), its corrections (1 / (1 + ' +
        'edits)) and, for the last word with `prefix`, its completions.',
    ),
  ),
  item: ItemSchema,
  matchedTerms: v.pipe(
    v.array(v.string()),
    v.description('The indexed terms (stems, completions, corrections) of the query that the item holds.'),
  ),
  highlights: v.optional(HighlightsSchema),
});

/** `POST /retrieve` response. */
export const RetrieveResponseSchema = v.strictObject({ query: v.string(), results: v.array(ResultSchema) });
export type RetrieveResponse = v.InferOutput<typeof RetrieveResponseSchema>;
