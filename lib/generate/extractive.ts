import { stopwordLists } from '../search/text/tokenizer.ts';
import { NO_MATCH_ANSWER } from './citations.ts';
import { countTokens, lowercaseWords, truncateToTokens } from './tokens.ts';
import type { ContextItem, Generator, GeneratorInput, GeneratorOutput, StopReason } from './types.ts';

/** The model name the extractive generator reports. */
export const EXTRACTIVE_MODEL = 'extractive-v1';

const MAX_SENTENCES = 3;
// Markers already in item text would read as citations the generator never made.
const MARKERS_IN_TEXT = /\[\d+(?:\s*,\s*\d+)*\]/g;
// Words too common to say whether a sentence is about the question: the stopwords retrieval drops from a query.
const STOP_WORDS = stopwordLists.classic45;

interface Sentence {
  ref: number;
  position: number;
  inName: boolean;
  text: string;
  score: number;
}

/** Splits text into sentences at `.`, `!` or `?` followed by whitespace, and at line breaks. */
export function splitSentences(text: string): string[] {
  return text
    .replace(MARKERS_IN_TEXT, ' ')
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => lowercaseWords(sentence).length > 0);
}

/** An item's sentences: its name first, then those of its description. */
function sentencesOf(item: ContextItem, terms: ReadonlySet<string>): Sentence[] {
  const name = splitSentences(item.name);
  return [...name, ...splitSentences(item.description)].map((text, position) => ({
    ref: item.ref,
    position,
    inName: position < name.length,
    text,
    score: new Set(lowercaseWords(text).filter((word) => terms.has(word))).size,
  }));
}

function queryTerms(query: string): Set<string> {
  const words = lowercaseWords(query);
  const content = words.filter((word) => !STOP_WORDS.has(word));
  return new Set(content.length > 0 ? content : words);
}

/** The best sentences, best first; with none sharing a term, the top item's first description sentence. */
function pickSentences(items: readonly ContextItem[], query: string): Sentence[] {
  const terms = queryTerms(query);
  const ranked = [...items].sort((a, b) => a.ref - b.ref);
  const sentences = ranked.flatMap((item) => sentencesOf(item, terms));
  const matching = sentences
    .filter((sentence) => sentence.score > 0)
    .sort((a, b) => b.score - a.score || a.ref - b.ref || a.position - b.position);
  if (matching.length > 0) return matching.slice(0, MAX_SENTENCES);
  // The items were retrieved for this query, so the top one still answers best.
  const top = ranked[0];
  if (!top) return [];
  const topSentences = sentences.filter((sentence) => sentence.ref === top.ref);
  const fallback = topSentences.find((sentence) => !sentence.inName) ?? topSentences[0];
  return fallback ? [fallback] : [];
}

function splitEnd(text: string): { body: string; end: string } {
  const match = /^(.*?)\s*([.!?]*)$/s.exec(text);
  return { body: match?.[1] ?? text, end: match?.[2] || '.' };
}

/** `Waterproof boot.` from item 2 becomes `Waterproof boot [2].` */
function cite(sentence: Sentence): string {
  const { body, end } = splitEnd(sentence.text);
  return `${body} [${sentence.ref}]${end}`;
}

/** The first sentence cut to the limit, keeping its marker when there is room for it. */
function truncateCited(sentence: Sentence, maxTokens: number): string {
  const { body } = splitEnd(sentence.text);
  const marker = ` [${sentence.ref}]`;
  const markerTokens = countTokens(marker);
  if (maxTokens <= markerTokens) return truncateToTokens(body, maxTokens);
  return `${truncateToTokens(body, maxTokens - markerTokens)}${marker}`;
}

function compose(
  sentences: readonly Sentence[],
  maxTokens: number,
): { answer: string; stopReason: StopReason } {
  if (sentences.length === 0) {
    const answer = truncateToTokens(NO_MATCH_ANSWER, maxTokens);
    return { answer, stopReason: answer === NO_MATCH_ANSWER ? 'end_turn' : 'max_tokens' };
  }
  const parts: string[] = [];
  let used = 0;
  for (const sentence of sentences) {
    const part = cite(sentence);
    const tokens = countTokens(part);
    if (used + tokens > maxTokens) {
      if (parts.length === 0) parts.push(truncateCited(sentence, maxTokens));
      return { answer: parts.join(' '), stopReason: 'max_tokens' };
    }
    parts.push(part);
    used += tokens;
  }
  return { answer: parts.join(' '), stopReason: 'end_turn' };
}

function inputTokens({ query, items }: GeneratorInput): number {
  let total = countTokens(query);
  for (const item of items) {
    total += countTokens(item.name) + countTokens(item.description);
    for (const tag of item.tags) total += countTokens(tag);
  }
  return total;
}

/**
 * A deterministic, offline generator: answers with up to three item sentences that share the most
 * query terms (ties: lower ref, then earlier sentence), each followed by its item's `[ref]` marker.
 * Tokens are counted with `countTokens`; `temperature` is ignored.
 */
export function createExtractiveGenerator(): Generator {
  return {
    model: EXTRACTIVE_MODEL,
    async generate(input): Promise<GeneratorOutput> {
      const { answer, stopReason } = compose(pickSentences(input.items, input.query), input.maxTokens);
      const usage = { inputTokens: inputTokens(input), outputTokens: countTokens(answer) };
      return {
        answer,
        model: EXTRACTIVE_MODEL,
        stopReason,
        usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
      };
    },
  };
}
