import type { ContextItem } from './types.ts';

/** The fixed answer when retrieval found no item for the question. */
export const NO_MATCH_ANSWER = 'None of the available items answer this question.';

export interface Citation {
  ref: number;
  itemId: number;
  name: string;
  score: number;
}

export interface GroundedAnswer {
  answer: string;
  citations: Citation[];
}

// `[1, 3]` is common in model output; it is split into `[1] [3]` so each ref is checked on its own.
const MARKER_LIST = /\[(\d+(?:\s*,\s*\d+)+)\]/g;
// The spaces before a marker go with it, so dropping a marker leaves no gap before punctuation.
const MARKER = /[ \t]*\[(\d+)\]/g;

/** Drops every `[n]` marker whose n is not a given item's ref, and cites exactly the refs still marked. */
export function groundAnswer(answer: string, items: readonly ContextItem[]): GroundedAnswer {
  const byRef = new Map(items.map((item) => [item.ref, item]));
  const cited = new Set<number>();
  const expanded = answer.replace(MARKER_LIST, (_, list: string) =>
    list
      .split(',')
      .map((ref) => `[${ref.trim()}]`)
      .join(' '),
  );
  const grounded = expanded
    .replace(MARKER, (marker: string, digits: string) => {
      const ref = Number(digits);
      if (!byRef.has(ref)) return '';
      cited.add(ref);
      return marker.replace(`[${digits}]`, `[${ref}]`);
    })
    .replace(/^[ \t]+/gm, '')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
  const citations = [...cited]
    .sort((a, b) => a - b)
    .flatMap((ref) => {
      const item = byRef.get(ref);
      return item ? [{ ref, itemId: item.itemId, name: item.name, score: item.score }] : [];
    });
  return { answer: grounded, citations };
}
