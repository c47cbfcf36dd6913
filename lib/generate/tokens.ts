// A token is a maximal run of Unicode letters and digits, or any single other non-space character.
const TOKEN = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/** The lowercase words (runs of letters and digits) of a text, in order, duplicates kept. */
export function lowercaseWords(text: string): string[] {
  return Array.from(text.toLowerCase().matchAll(WORD), (match) => match[0]);
}

/**
 * Counts tokens by the extractive generator's rule: each maximal run of Unicode letters/digits is one
 * token, each other non-whitespace character is one token, whitespace is free.
 * `"Trail Boot is waterproof [1]."` is 8 tokens: Trail, Boot, is, waterproof, `[`, 1, `]`, `.`.
 */
export function countTokens(text: string): number {
  return Array.from(text.matchAll(TOKEN)).length;
}

/** The longest prefix of `text` holding at most `maxTokens` tokens (by `countTokens`), trimmed. */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  let end = 0;
  let count = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (count === maxTokens) break;
    end = match.index + match[0].length;
    count += 1;
  }
  return text.slice(0, end).trim();
}
