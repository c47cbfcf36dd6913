/**
 * The retrieval tokenizer. Items and queries go through the same steps, in this order:
 *
 * 1. Normalize with Unicode NFKC, then lowercase (`String.prototype.toLowerCase`, locale-independent) and fold the
 *    final sigma `ς` to `σ` (`foldCase`): full-width `Ｂｏｏｔ` → `boot`, the ligature `ﬁ` → `fi`, `²` → `2`,
 *    `ΟΔΟΣ` → `οδοσ`.
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
 * 7. The index also keeps a word's *exact form* beside its stem where stemming cut a suffix (contract v1.2 §8.6):
 *    the word with only a plural removed (Lucene's `EnglishMinimalStemmer`, Harman's S-stemmer), marked
 *    `=`, when it is at least two code points longer than the stem (`experimental` → `experiment` and
 *    `=experimental`; `boots` → `boot` alone; `studies` → `studi` alone, a letter changed is no suffix cut). As
 *    Lucene's `KeywordRepeatFilter` + `RemoveDuplicatesTokenFilter` index a word and its stem at one position, the
 *    exact form does not count in the item's length. `wordTerms` gives both, `indexTerms` what an item is indexed on.
 *
 * The default `tokenize` drops the `classic45` stopwords and stems: the best of the variants measured on the
 * Cranfield collection by `npm run bench:tokenizers` (README, Quality). `wordSpans` gives the
 * same terms with where each word is in the text as written (`normalized-offsets.ts` maps step 1 back), for
 * highlighting.
 */
import { stemmer } from 'stemmer';
import { foldCase, normalizeWithOffsets } from './normalized-offsets.ts';

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
/** WORD for `spansOf` alone, which keeps its `lastIndex`. */
const SCAN = new RegExp(WORD.source, WORD.flags);
const POSSESSIVE = /['’]s$/u;
const APOSTROPHES = /['’]/gu;
const PORTER_INPUT = /^[a-z]+$/;

/** Step 1: the text the words are found in. */
const normalize = (text: string) => foldCase(text.normalize('NFKC'));

/** Step 3 on a word as the regular expression found it. */
const dropApostrophes = (match: string) =>
  match.includes("'") || match.includes('’') ? match.replace(POSSESSIVE, '').replace(APOSTROPHES, '') : match;

/** Steps 5 and 6: the term of a word, or undefined for a stopword or a word too long. */
function termOf(word: string, stop: ReadonlySet<string>, stem: boolean): string | undefined {
  // A word of at most 64 UTF-16 units has at most 64 code points: only longer ones need counting.
  if (stop.has(word) || (word.length > MAX_TOKEN_LENGTH && [...word].length > MAX_TOKEN_LENGTH))
    return undefined;
  return stem && PORTER_INPUT.test(word) ? stemmer(word) : word;
}

/** The words of `text` after normalization, before stopwords and stemming (steps 1–4 above). */
export function words(text: string): string[] {
  return [...normalize(text).matchAll(WORD)].map(([match]) => dropApostrophes(match));
}

/** Builds a tokenizer with the given stopword list and stemming choice (rules in the module comment). */
export function createTokenizer(options: TokenizerOptions): Tokenizer {
  const stop = stopwordLists[options.stopwords];
  return (text) => {
    const out: string[] = [];
    for (const [match] of normalize(text).matchAll(WORD)) {
      const term = termOf(dropApostrophes(match), stop, options.stem);
      if (term !== undefined) out.push(term);
    }
    return out;
  };
}

/** The service's tokenizer: `classic45` stopwords, Porter stemming. */
export const tokenize: Tokenizer = createTokenizer({ stopwords: 'classic45', stem: true });

const serviceStopwords = stopwordLists.classic45;

/** What marks an exact form (step 7): never inside a word, so an exact form is never a stem. */
export const EXACT_FORM_MARK = '=';
/** Whether a term is an exact form (step 7) rather than a stem. */
export const isExactForm = (term: string): boolean => term.startsWith(EXACT_FORM_MARK);
/**
 * The Porter stem of an exact form's text: its word's stem (the word and its lightly stemmed form stem alike but in
 * rare cases), computed from the form alone. Never an exact form itself.
 */
export const stemOfExactForm = (form: string): string => stemmer(form.slice(EXACT_FORM_MARK.length));

/**
 * Lucene's `EnglishMinimalStemmer` (Harman's S-stemmer, "How Effective Is Suffixing?"): `-ies` → `-y` (not
 * `-eies`, `-aies`), `-es` → `-e` (not `-aes`, `-ees`, `-oes`; `-ies` as above), `-s` → `` (not `-us`, `-ss`).
 */
export function minimalStem(word: string): string {
  const length = word.length;
  if (length < 3 || !word.endsWith('s')) return word;
  const [third, second] = [word.at(-3), word.at(-2)];
  if (second === 'u' || second === 's') return word;
  if (second === 'e') {
    if (length > 3 && third === 'i' && word.at(-4) !== 'a' && word.at(-4) !== 'e')
      return `${word.slice(0, -3)}y`;
    if (third === 'i' || third === 'a' || third === 'o' || third === 'e') return word;
  }
  return word.slice(0, -1);
}

/** A word of a text as the index holds it: its term (the stem) and its exact form, when it has one (step 7). */
export interface WordTerm {
  readonly term: string;
  readonly exact: string | undefined;
}

/** The exact form of a word whose stem is `term` (step 7), or undefined. */
function exactFormOf(word: string, term: string): string | undefined {
  if (!PORTER_INPUT.test(word)) return undefined;
  const light = minimalStem(word);
  return light.length - term.length >= 2 ? `${EXACT_FORM_MARK}${light}` : undefined;
}

/** The service's words of `text`, each with its term and exact form (steps 1–7): the terms are `tokenize(text)`. */
export function wordTerms(text: string): WordTerm[] {
  const out: WordTerm[] = [];
  for (const [match] of normalize(text).matchAll(WORD)) {
    const word = dropApostrophes(match);
    const term = termOf(word, serviceStopwords, true);
    if (term !== undefined) out.push({ term, exact: exactFormOf(word, term) });
  }
  return out;
}

/**
 * What a text is indexed on: every word's term and exact form (step 7) as tokens, and its length `dl`, the number
 * of words (an exact form stands at its word's position and adds no length, as Lucene's BM25 discounts overlaps).
 */
export function indexTerms(text: string): { tokens: string[]; dl: number } {
  const words = wordTerms(text);
  return {
    tokens: words.flatMap(({ term, exact }) => (exact === undefined ? [term] : [term, exact])),
    dl: words.length,
  };
}

/** A word of a text: where it is, in code points of the original text, and its term as `tokenize` gives it. */
export interface WordSpan {
  /** The term, or undefined for a word `tokenize` drops (a stopword, or longer than 64 code points). */
  readonly term: string | undefined;
  /** First code point of the word in the original text. */
  readonly start: number;
  /** One past its last code point. */
  readonly end: number;
}

/**
 * Every word of `text` in order, as `tokenize` finds it, with its span in the original text: the terms that are
 * not undefined are exactly `tokenize(text)`. A span covers the whole word as written, a possessive `'s`
 * included, and every code point that normalization turned into it (`ﬁ`, `Ｂ`, `e` + U+0301, `İ`). A character
 * that normalizes into several words (`½` → `1⁄2`) is in the span of each.
 */
export function wordSpans(text: string): WordSpan[] {
  return spansOf(text, (match) => termOf(dropApostrophes(match), serviceStopwords, true));
}

/**
 * `wordSpans`, with `term` kept only when it is one of `terms`. Faster when `terms` are few: a word is looked at
 * only when some term starts with its first character (stemming keeps a word's first letter, and apostrophes
 * are never first), and each distinct word is stemmed once.
 */
export function wordSpansMatching(text: string, terms: ReadonlySet<string>): WordSpan[] {
  const initials = new Set<string>();
  for (const term of terms) initials.add(term.charAt(0));
  const seen = new Map<string, string | undefined>();
  return spansOf(text, (match) => {
    if (!initials.has(match.charAt(0))) return undefined;
    if (seen.has(match)) return seen.get(match);
    const term = termOf(dropApostrophes(match), serviceStopwords, true);
    const kept = term !== undefined && terms.has(term) ? term : undefined;
    seen.set(match, kept);
    return kept;
  });
}

/** The words of `text` with their spans; `termFor` gets each word as the regular expression found it. */
function spansOf(text: string, termFor: (word: string) => string | undefined): WordSpan[] {
  const normalized = normalizeWithOffsets(text);
  const out: WordSpan[] = [];
  // `exec` on an expression of its own (reset here) rather than `matchAll`, which clones one per call.
  SCAN.lastIndex = 0;
  for (let match = SCAN.exec(normalized.value); match; match = SCAN.exec(normalized.value)) {
    const [word] = match;
    out.push({
      term: termFor(word),
      start: normalized.start(match.index),
      end: normalized.end(match.index + word.length - 1),
    });
  }
  return out;
}

/**
 * The text an item is indexed on: name, description and tags, one per line. A newline is never part of a
 * word, so the last word of one field cannot glue onto the first word of the next.
 */
export function itemText(item: { name: string; description: string; tags: readonly string[] }): string {
  return [item.name, item.description, ...item.tags].join('\n');
}
