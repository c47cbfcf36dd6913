/**
 * Maps the tokenizer's normalized text, `foldCase(text.normalize('NFKC'))`, back to the text it came from, so
 * that a word found in the one can be shown in the other. Normalization changes lengths: the ligature `ﬁ` becomes
 * `fi`, `…` becomes `...`, `e` + U+0301 becomes `é`, `İ` lowercases to `i` + U+0307.
 *
 * The text is cut into units: a code point with the characters after it that normalization may join to it (see
 * JOINING). Each unit is normalized on its own, and the pieces must line up with the normalization of the whole
 * text; where one does not, the unit takes in the next until it does (a safeguard: the test of JOINING against
 * every code point says it never has to). Lowercasing is done on the whole normalized text, as the tokenizer does;
 * no code point's lowercase length depends on its neighbours.
 *
 * Text that normalization leaves as it is costs nothing more; otherwise stretches of 64 units that it leaves as
 * they are map one to one, and the rest costs a `normalize` call per non-ASCII unit. Grapheme segmentation
 * (`Intl.Segmenter`) would give much the same units but costs about 2 ms per 5,000 characters.
 */

/** The normalized text, and for each of its UTF-16 units the code points of the original it came from. */
export interface NormalizedText {
  /** `foldCase(text.normalize('NFKC'))`, exactly. */
  readonly value: string;
  /** The first code point of the original behind the unit of `value` at `index`. */
  start(index: number): number;
  /** One past the last code point of the original behind the unit of `value` at `index`. */
  end(index: number): number;
  /** False when the pieces could not be lined up and every unit maps to the whole text (never seen; a safeguard). */
  readonly exact: boolean;
}

/**
 * Characters that normalization may join to the character before them: marks, Hangul vowel and final jamo (also
 * their compatibility and half-width forms, which NFKC maps to them), the half-width kana voicing marks, and the
 * Kirat Rai vowel signs E and AI (letters that compose with what precedes them, AI being E + E). A test checks
 * this against every code point: whatever composes with or reorders behind a preceding character, or normalizes
 * to something that does, is here.
 */
const JOINING_CLASS = String.raw`[\p{M}\u1160-\u11FF\uD7B0-\uD7FF\u3131-\u318E\uFFA0-\uFFDC\uFF9E\uFF9F\u{16D67}\u{16D68}]`;
const JOINING = new RegExp(JOINING_CLASS, 'uy');
const JOINING_ALONE = new RegExp(`^${JOINING_CLASS}$`, 'u');

/** True when normalization may join this code point to the one before it (see JOINING). */
export const joinsPrevious = (codePoint: string): boolean => JOINING_ALONE.test(codePoint);

const SURROGATE = /[\uD800-\uDFFF]/;
/** No joining character comes before the combining marks at U+0300. */
const FIRST_JOINING = 0x300;

const isPair = (text: string, i: number) => {
  const unit = text.charCodeAt(i);
  const next = text.charCodeAt(i + 1);
  return unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
};

/**
 * Lowercase with the final sigma folded: `toLowerCase` writes a capital sigma as `ς` or `σ` by what is around it,
 * past the word too (`ΟΔΟΣ.Α` gives `οδοσ.α`, `ΟΔΟΣ Α` gives `οδος α`), so a word's term would depend on its
 * neighbours, and a query word written `οδοσ` would miss `οδος`. Folding `ς` to `σ` (Lucene's
 * `GreekLowerCaseFilter` and Unicode case folding do the same) makes a term the word's alone. Same length: the
 * offsets do not move.
 */
export const foldCase = (text: string): string => text.toLowerCase().replaceAll('ς', 'σ');

/** The normalized text with the offsets of every unit in the original (rules in the module comment). */
export function normalizeWithOffsets(text: string): NormalizedText {
  const nfkc = text.normalize('NFKC');
  const value = foldCase(nfkc);
  // No code point lowercases to fewer UTF-16 units, so equal lengths mean each unit stays where it was.
  if (nfkc === text && value.length === text.length) return unchanged(text, value);
  return lineUp(text, nfkc, value) ?? whole(text, value);
}

function unchanged(text: string, value: string): NormalizedText {
  if (!SURROGATE.test(text)) return { value, start: (i) => i, end: (i) => i + 1, exact: true };
  const points = new Int32Array(text.length);
  for (let i = 0, point = 0; i < text.length; i++, point++) {
    points[i] = point;
    if (isPair(text, i)) points[++i] = point;
  }
  const at = (i: number) => points[i] ?? 0;
  return { value, start: at, end: (i) => at(i) + 1, exact: true };
}

/** Code units per chunk tried as a whole before going unit by unit. */
const CHUNK = 64;

const joinsAt = (text: string, i: number) => {
  JOINING.lastIndex = i;
  return JOINING.test(text);
};

/** The first unit boundary at or after `i`: not inside a surrogate pair, not before a joining character. */
function unitBoundary(text: string, i: number): number {
  let at = i;
  while (at < text.length) {
    if (at > 0 && isPair(text, at - 1)) at++;
    else if (text.charCodeAt(at) >= FIRST_JOINING && joinsAt(text, at)) at += isPair(text, at) ? 2 : 1;
    else break;
  }
  return at;
}

/**
 * Cuts `text` into units and lines their normalized pieces up with `nfkc`; undefined if they do not line up.
 * A chunk that normalization and lowercasing leave as it is maps one to one and needs no unit-by-unit work, nor
 * does an ASCII character with no joining character after it.
 */
function lineUp(text: string, nfkc: string, value: string): NormalizedText | undefined {
  const starts = new Int32Array(value.length);
  const ends = new Int32Array(value.length);
  let from = 0; // UTF-16 index in text
  let point = 0; // code point index in text
  let at = 0; // UTF-16 index in nfkc
  let out = 0; // UTF-16 index in value
  let unitByUnitUntil = 0;
  while (from < text.length) {
    if (from >= unitByUnitUntil) {
      const to = unitBoundary(text, Math.min(text.length, from + CHUNK));
      const chunk = text.slice(from, to);
      if (
        chunk.normalize('NFKC') === chunk &&
        nfkc.startsWith(chunk, at) &&
        chunk.toLowerCase().length === chunk.length
      ) {
        for (; from < to; from++, out++) {
          starts[out] = point;
          ends[out] = point + 1;
          if (!isPair(text, from)) point++;
        }
        at += chunk.length;
        continue;
      }
      unitByUnitUntil = to;
    }
    const code = text.charCodeAt(from);
    if (code < 0x80 && !(text.charCodeAt(from + 1) >= FIRST_JOINING && joinsAt(text, from + 1))) {
      if (nfkc.charCodeAt(at) !== code) return undefined;
      starts[out] = point;
      ends[out] = point + 1;
      from++;
      point++;
      at++;
      out++;
      continue;
    }
    let to = from;
    let endPoint = point;
    let piece: string;
    do {
      // One code point and the joining ones after it; then the next unit too, while the pieces do not line up.
      to += isPair(text, to) ? 2 : 1;
      endPoint++;
      while (to < text.length && text.charCodeAt(to) >= FIRST_JOINING && joinsAt(text, to)) {
        to += isPair(text, to) ? 2 : 1;
        endPoint++;
      }
      piece = text.slice(from, to).normalize('NFKC');
    } while (!nfkc.startsWith(piece, at) && to < text.length);
    const lowered = piece.toLowerCase().length;
    if (!nfkc.startsWith(piece, at) || out + lowered > value.length) return undefined;
    starts.fill(point, out, out + lowered);
    ends.fill(endPoint, out, out + lowered);
    at += piece.length;
    out += lowered;
    from = to;
    point = endPoint;
  }
  if (at !== nfkc.length || out !== value.length) return undefined;
  return { value, start: (i) => starts[i] ?? 0, end: (i) => ends[i] ?? 0, exact: true };
}

function whole(text: string, value: string): NormalizedText {
  let points = 0;
  for (const _ of text) points++;
  return { value, start: () => 0, end: () => points, exact: false };
}
