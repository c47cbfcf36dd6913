/**
 * Maps the tokenizer's normalized text, `foldCase(text.normalize('NFKC'))`, back to the text it came from, so
 * that a word found in the one can be shown in the other. Normalization changes lengths: the ligature `ﬁ` becomes
 * `fi`, `…` becomes `...`, `e` + U+0301 becomes `é`, `İ` lowercases to `i` + U+0307.
 *
 * The text is cut into units: a code point with the characters after it that normalization may join to it
 * (text-units.ts). Each unit is normalized on its own, and the pieces must line up with the normalization of the
 * whole text; where one does not, the unit takes in the next until it does (a safeguard: the test of the joining
 * characters against every code point says it never has to). Lowercasing is done on the whole normalized text, as the tokenizer does;
 * no code point's lowercase length depends on its neighbours.
 *
 * Text that normalization leaves as it is costs nothing more; otherwise stretches of 64 units that it leaves as
 * they are map one to one, and the rest costs a `normalize` call per non-ASCII unit. Grapheme segmentation
 * (`Intl.Segmenter`) would give much the same units but costs about 2 ms per 5,000 characters.
 */

import { isPair, joinsAt, unitBoundary, unitsAt } from './text-units.ts';

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

const SURROGATE = /[\uD800-\uDFFF]/;

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

/** An ASCII character that nothing joins normalizes to itself, and needs no `normalize` call. */
const isLoneAscii = (text: string, i: number) => text.charCodeAt(i) < 0x80 && !joinsAt(text, i + 1);

/**
 * Cuts `text` into units and lines their normalized pieces up with `nfkc`; undefined if they do not line up.
 * A chunk that normalization and lowercasing leave as it is maps one to one and needs no unit-by-unit work, nor
 * does an ASCII character with no joining character after it.
 */
function lineUp(text: string, nfkc: string, value: string): NormalizedText | undefined {
  const line = new LineUp(text, nfkc, value);
  while (line.from < text.length) {
    if (line.from >= line.unitByUnitUntil && line.copyChunk()) continue;
    if (!line.alignUnits()) return undefined;
  }
  return line.result();
}

/**
 * Where lining up stands: `from` (UTF-16) and `point` (code points) in the text, `at` in nfkc and `out` in value;
 * `starts` and `ends` give each unit of value so far the code points of the text behind it. Chunks are not tried
 * again before `unitByUnitUntil`, the end of the last one that normalization changed.
 */
class LineUp {
  readonly text: string;
  readonly nfkc: string;
  readonly value: string;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  from = 0;
  point = 0;
  at = 0;
  out = 0;
  unitByUnitUntil = 0;

  constructor(text: string, nfkc: string, value: string) {
    this.text = text;
    this.nfkc = nfkc;
    this.value = value;
    this.starts = new Int32Array(value.length);
    this.ends = new Int32Array(value.length);
  }

  /**
   * Maps the chunk at `from` one to one when normalization and lowercasing leave it as it is; otherwise marks it
   * to be gone through unit by unit, and returns false.
   */
  copyChunk(): boolean {
    const { text, starts, ends } = this;
    const to = unitBoundary(text, Math.min(text.length, this.from + CHUNK));
    const chunk = text.slice(this.from, to);
    if (
      chunk.normalize('NFKC') !== chunk ||
      !this.nfkc.startsWith(chunk, this.at) ||
      chunk.toLowerCase().length !== chunk.length
    ) {
      this.unitByUnitUntil = to;
      return false;
    }
    let { from, point, out } = this;
    for (; from < to; from++, out++) {
      starts[out] = point;
      ends[out] = point + 1;
      if (!isPair(text, from)) point++;
    }
    this.from = from;
    this.point = point;
    this.out = out;
    this.at += chunk.length;
    return true;
  }

  /**
   * Lines up unit by unit to `unitByUnitUntil` (or past it, where a unit takes in the next); false when a piece is
   * not where nfkc has it. This is the per-character loop of changed text, so its state stays in locals.
   */
  alignUnits(): boolean {
    const { text, nfkc, value, starts, ends, unitByUnitUntil } = this;
    let { from, point, at, out } = this;
    while (from < unitByUnitUntil) {
      if (isLoneAscii(text, from)) {
        if (nfkc.charCodeAt(at) !== text.charCodeAt(from)) return false;
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
        to += unitsAt(text, to);
        endPoint++;
        while (joinsAt(text, to)) {
          to += unitsAt(text, to);
          endPoint++;
        }
        piece = text.slice(from, to).normalize('NFKC');
      } while (!nfkc.startsWith(piece, at) && to < text.length);
      const lowered = piece.toLowerCase().length;
      if (!nfkc.startsWith(piece, at) || out + lowered > value.length) return false;
      starts.fill(point, out, out + lowered);
      ends.fill(endPoint, out, out + lowered);
      at += piece.length;
      out += lowered;
      from = to;
      point = endPoint;
    }
    this.from = from;
    this.point = point;
    this.at = at;
    this.out = out;
    return true;
  }

  /** The offsets, when the units lined up with the whole of nfkc and of value. */
  result(): NormalizedText | undefined {
    const { value, starts, ends } = this;
    if (this.at !== this.nfkc.length || this.out !== value.length) return undefined;
    return { value, start: (i) => starts[i] ?? 0, end: (i) => ends[i] ?? 0, exact: true };
  }
}

function whole(text: string, value: string): NormalizedText {
  let points = 0;
  for (const _ of text) points++;
  return { value, start: () => 0, end: () => points, exact: false };
}
