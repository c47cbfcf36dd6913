import { citationPassage } from '../search/read/highlight.ts';
import type { Retriever, SearchOption, WithOptional } from '../search/read/retrieve.ts';
import { groundAnswer, NO_MATCH_ANSWER } from './citations.ts';
import type { GenerateRequest, GenerateResponse } from './schema.ts';
import type { ContextItem, Generator } from './types.ts';

/** A generate request; the options of contract §8 may be left out (as in v1). */
export type GenerateInput = WithOptional<GenerateRequest, Exclude<SearchOption, 'highlight'>>;

/**
 * The generate pipeline: retrieve → build the context → generate → keep only citations of given items.
 * The answer is built only from the items retrieval returned for this query.
 */
export function createAnswerer({ retrieve, generator }: { retrieve: Retriever; generator: Generator }) {
  return async ({
    query,
    topK,
    filter,
    where,
    maxTokens,
    temperature,
    prefix,
    typos,
  }: GenerateInput): Promise<GenerateResponse> => {
    const { results } = await retrieve({
      query,
      topK,
      minScore: 0,
      prefix,
      typos,
      ...(filter ? { filter } : {}),
      ...(where ? { where } : {}),
    });
    if (results.length === 0) {
      return {
        query,
        answer: NO_MATCH_ANSWER,
        grounded: false,
        citations: [],
        model: generator.model,
        stopReason: 'end_turn',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      };
    }
    const items: ContextItem[] = results.map(({ rank, score, item }) => ({
      ref: rank,
      itemId: item.id,
      name: item.name,
      description: item.description,
      tags: item.tags,
      score,
    }));
    const output = await generator.generate({ query, items, maxTokens, temperature });
    const grounded = groundAnswer(output.answer, items);
    // Each citation carries the passage of its item that supports the answer (contract §8.5).
    const citations = grounded.citations.map((citation) => {
      const result = results[citation.ref - 1];
      return {
        ...citation,
        passage: result ? citationPassage(result.item, result.matchedTerms) : citation.name,
      };
    });
    const { answer } = grounded;
    return {
      query,
      answer,
      grounded: citations.length > 0,
      citations,
      model: output.model,
      stopReason: output.stopReason,
      usage: output.usage,
    };
  };
}
