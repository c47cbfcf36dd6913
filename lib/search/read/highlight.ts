/**
 * Highlights (contract §8.2) and citation passages (§8.5): where a result's matched terms occur in its item.
 *
 * Offsets are Unicode code points of `text`, start inclusive, end exclusive. A span covers a word as written,
 * whatever normalization did to it (`ﬁre`, `ＢＯＯＴ`, `Cafe` + U+0301, `Earth's` with its `'s`); see `wordSpans`.
 * Spans come sorted; two that overlap (a character such as `½` that normalizes into two words) become one.
 *
 * The description passage: at most 240 code points of the description, starting at a word's start (or the text's
 * start) and ending at a word's end (or the text's end), holding the most distinct matched terms any such window
 * holds; `…` marks each side that was cut, and does not count in the 240. Among the windows holding that many,
 * the passage is built around the shortest run of matched words that holds them (the earliest of equal ones),
 * with the rest of the 240 shared evenly before and after it, so the matches sit in their context rather than
 * at an edge. A description of at most 240 code points is its own passage.
 */
import * as v from 'valibot';
import { charCount, type Item, maxChars } from '../../items/schema.ts';
import { type WordSpan, wordSpansMatching } from '../text/tokenizer.ts';

/** Longest description passage, in code points, not counting the `…` marks. */
export const PASSAGE_LENGTH = 240;
/** Marks a side where the description was cut. */
export const ELLIPSIS = '…';

const Offset = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
export const MatchSpanSchema = v.pipe(
  v.strictObject({ start: Offset, end: Offset }),
  v.description('A matched word in `text`, in Unicode code points: `start` inclusive, `end` exclusive.'),
);
export const HighlightSchema = v.strictObject({
  field: v.picklist(['name', 'description', 'tags']),
  text: v.pipe(
    v.string(),
    v.description(
      'Plain text, no markup: the whole name, the tags joined by ", ", or the best passage of the description ' +
        `(at most ${PASSAGE_LENGTH} characters, with "${ELLIPSIS}" where it was cut).`,
    ),
  ),
  matches: v.pipe(
    v.array(MatchSpanSchema),
    v.minLength(1),
    v.description('Every word of `text` whose term is one of the matched terms; sorted, not overlapping.'),
  ),
});
/** `highlights` of a retrieve result: one entry per field that matched, in the order name, description, tags. */
export const HighlightsSchema = v.pipe(
  v.array(HighlightSchema),
  v.maxLength(3),
  v.description('One entry per field that matched: name, description, tags, in that order.'),
);
/** `passage` of a citation. */
export const PassageSchema = v.pipe(
  v.string(),
  maxChars(PASSAGE_LENGTH + 2, `must be at most ${PASSAGE_LENGTH + 2} characters`),
  v.description(
    `The description's best passage (at most ${PASSAGE_LENGTH} characters, with "${ELLIPSIS}" where it was ` +
      'cut) when the description matched, otherwise the name.',
  ),
);
export type Highlight = v.InferOutput<typeof HighlightSchema>;
type Span = v.InferOutput<typeof MatchSpanSchema>;

/** The fields a highlight reads. */
export type HighlightedItem = Pick<Item, 'name' | 'description' | 'tags'>;

/** Spans of the matched words within [from, to), moved by `shift`; overlapping ones merged. */
function matchSpans(words: readonly WordSpan[], from: number, to: number, shift: number): Span[] {
  const out: Span[] = [];
  for (const { term, start, end } of words) {
    if (term === undefined || start < from || end > to) continue;
    const last = out.at(-1);
    if (last && start + shift < last.end) last.end = Math.max(last.end, end + shift);
    else out.push({ start: start + shift, end: end + shift });
  }
  return out;
}

/** Distinct terms in a sliding window. */
class TermCounts {
  #counts = new Map<string, number>();
  distinct = 0;
  add(term: string) {
    const count = this.#counts.get(term) ?? 0;
    if (count === 0) this.distinct++;
    this.#counts.set(term, count + 1);
  }
  remove(term: string) {
    const count = this.#counts.get(term) ?? 0;
    if (count === 1) this.distinct--;
    this.#counts.set(term, count - 1);
  }
}

type Matched = WordSpan & { readonly term: string };

/** The most distinct terms any run of matched words spanning at most `limit` code points holds (two pointers). */
function mostDistinct(matched: readonly Matched[], limit: number): number {
  const window = new TermCounts();
  let best = 0;
  let end = 0;
  for (const [i, first] of matched.entries()) {
    for (let next = matched[end]; next && next.end - first.start <= limit; next = matched[++end]) {
      window.add(next.term);
    }
    best = Math.max(best, window.distinct);
    if (end > i) window.remove(first.term);
  }
  return best;
}

/** The shortest run of matched words holding `wanted` distinct terms within `limit` (the earliest of equals). */
function shortestRun(matched: readonly Matched[], wanted: number, limit: number) {
  const window = new TermCounts();
  let best: { start: number; end: number } | undefined;
  let end = 0;
  for (const first of matched) {
    for (let next = matched[end]; window.distinct < wanted && next; next = matched[++end])
      window.add(next.term);
    const last = matched[end - 1];
    if (window.distinct < wanted || !last) break;
    const length = last.end - first.start;
    if (length <= limit && (!best || length < best.end - best.start))
      best = { start: first.start, end: last.end };
    window.remove(first.term);
  }
  return best;
}

/** Widens a run to at most `limit` code points of a text of `length`, evenly, cut at word boundaries. */
function widen(
  run: { start: number; end: number },
  words: readonly WordSpan[],
  length: number,
  limit: number,
) {
  const slack = limit - (run.end - run.start);
  let before = Math.floor(slack / 2);
  let after = slack - before;
  if (run.start < before) [before, after] = [run.start, after + before - run.start];
  if (run.end + after > length) [before, after] = [before + run.end + after - length, length - run.end];
  const from = Math.max(0, run.start - before);
  const start = from === 0 ? 0 : (words.find((word) => word.start >= from)?.start ?? run.start);
  if (length - start <= limit) return { start, end: length };
  let end = run.end;
  for (const word of words) if (word.end <= start + limit && word.end > end) end = word.end;
  return { start, end };
}

/** The text of `text` from code point `start` to code point `end`. */
function slice(text: string, start: number, end: number): string {
  let from = 0;
  let point = 0;
  for (; point < start; point++) from += (text.codePointAt(from) ?? 0) > 0xffff ? 2 : 1;
  let to = from;
  for (; point < end; point++) to += (text.codePointAt(to) ?? 0) > 0xffff ? 2 : 1;
  return text.slice(from, to);
}

/**
 * The description's highlight: its best passage of at most `limit` code points (240 for the contract; tests try
 * smaller ones) with the spans of the matched words, or undefined when no matched word is in it or none fits in
 * `limit` (only a word written with more code points than that, say long combining sequences, does not).
 */
export function descriptionPassage(
  description: string,
  matchedTerms: readonly string[],
  limit = PASSAGE_LENGTH,
): { text: string; matches: Span[] } | undefined {
  const words = wordSpansMatching(description, new Set(matchedTerms));
  const length = charCount(description);
  if (length <= limit) {
    const matches = matchSpans(words, 0, length, 0);
    return matches.length > 0 ? { text: description, matches } : undefined;
  }
  const matched = words.filter(
    (word): word is Matched => word.term !== undefined && word.end - word.start <= limit,
  );
  const run = shortestRun(matched, mostDistinct(matched, limit), limit);
  if (!run) return undefined;
  const { start, end } = widen(run, words, length, limit);
  const before = start > 0 ? ELLIPSIS : '';
  const after = end < length ? ELLIPSIS : '';
  return {
    text: `${before}${slice(description, start, end)}${after}`,
    matches: matchSpans(words, start, end, before.length - start),
  };
}

/** A whole-field highlight, or undefined when no word of the field matched. */
function fieldHighlight(
  field: 'name' | 'tags',
  text: string,
  terms: ReadonlySet<string>,
): Highlight | undefined {
  const matches = matchSpans(wordSpansMatching(text, terms), 0, Number.POSITIVE_INFINITY, 0);
  return matches.length > 0 ? { field, text, matches } : undefined;
}

/** A retrieve result's `highlights` (contract §8.2) for its item and `matchedTerms` (indexed terms). */
export function highlights(item: HighlightedItem, matchedTerms: readonly string[]): Highlight[] {
  const terms = new Set(matchedTerms);
  const description = descriptionPassage(item.description, matchedTerms);
  return [
    fieldHighlight('name', item.name, terms),
    description && { field: 'description' as const, ...description },
    fieldHighlight('tags', item.tags.join(', '), terms),
  ].filter((entry) => entry !== undefined);
}

/** A citation's `passage` (contract §8.5): the description's best passage if it matched, else the name. */
export function citationPassage(item: HighlightedItem, matchedTerms: readonly string[]): string {
  return descriptionPassage(item.description, matchedTerms)?.text ?? item.name;
}
