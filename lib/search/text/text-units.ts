/**
 * The units normalization works on: a code point with the characters after it that normalization may join to it.
 * normalized-offsets.ts normalizes text unit by unit and lines the pieces up with the normalization of the whole.
 */

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

/** No joining character comes before the combining marks at U+0300. */
const FIRST_JOINING = 0x300;

/** Whether the UTF-16 units at `i` and `i + 1` are a surrogate pair. */
export const isPair = (text: string, i: number): boolean => {
  const unit = text.charCodeAt(i);
  const next = text.charCodeAt(i + 1);
  return unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
};

/** The UTF-16 units of the code point at `i`. */
export const unitsAt = (text: string, i: number): number => (isPair(text, i) ? 2 : 1);

/** Whether the code point at `i` may join the one before it (false past the end). */
export function joinsAt(text: string, i: number): boolean {
  // Most text is below FIRST_JOINING and skips the regex; past the end, charCodeAt's NaN fails the test too.
  return text.charCodeAt(i) >= FIRST_JOINING && matchesJoining(text, i);
}

function matchesJoining(text: string, i: number): boolean {
  JOINING.lastIndex = i;
  return JOINING.test(text);
}

/** The first unit boundary at or after `i`: not inside a surrogate pair, not before a joining character. */
export function unitBoundary(text: string, i: number): number {
  let at = i;
  while (at < text.length) {
    if (at > 0 && isPair(text, at - 1)) at++;
    else if (joinsAt(text, at)) at += unitsAt(text, at);
    else break;
  }
  return at;
}
