import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { foldCase, normalizeWithOffsets } from '../../../../lib/search/text/normalized-offsets.ts';
import { joinsPrevious } from '../../../../lib/search/text/text-units.ts';

/** Every code point but the surrogates, as strings. */
const everyCodePoint = (): string[] => {
  const out: string[] = [];
  for (let point = 0; point <= 0x10ffff; point++) {
    if (point < 0xd800 || point > 0xdfff) out.push(String.fromCodePoint(point));
  }
  return out;
};
const hex = (s: string) => (s.codePointAt(0) ?? 0).toString(16).toUpperCase();

/** The pieces of the original behind runs of `value` units with the same offsets, in order. */
function pieces(text: string) {
  const normalized = normalizeWithOffsets(text);
  const points = Array.from(text);
  const out: { start: number; end: number; original: string; normalized: string }[] = [];
  for (let i = 0; i < normalized.value.length; i++) {
    const start = normalized.start(i);
    const end = normalized.end(i);
    const last = out.at(-1);
    if (last && last.start === start && last.end === end) last.normalized += normalized.value[i];
    else
      out.push({
        start,
        end,
        original: points.slice(start, end).join(''),
        normalized: normalized.value[i] ?? '',
      });
  }
  return { normalized, points, out };
}

describe('normalizeWithOffsets', () => {
  it.each([
    [
      'ﬁre',
      [
        ['ﬁ', 'f'],
        ['ﬁ', 'i'],
        ['r', 'r'],
        ['e', 'e'],
      ],
    ],
    [
      'Ｂé',
      [
        ['Ｂ', 'b'],
        ['é', 'é'],
      ],
    ],
    [
      'e\u0301x',
      [
        ['e\u0301', 'é'],
        ['x', 'x'],
      ],
    ],
    [
      'İ!',
      [
        ['İ', 'i'],
        ['İ', '\u0307'],
        ['!', '!'],
      ],
    ],
    [
      'a…',
      [
        ['a', 'a'],
        ['…', '.'],
        ['…', '.'],
        ['…', '.'],
      ],
    ],
    ['ㄱㅏ', [['ㄱㅏ', '가']]],
    [
      '😀Σ',
      [
        ['😀', '😀'.charAt(0)],
        ['😀', '😀'.charAt(1)],
        ['Σ', 'σ'],
      ],
    ],
  ])('maps each unit of the normalized %j back to what it came from', (text, expected) => {
    const { normalized, points } = pieces(text);
    expect(normalized.value).toBe(text.normalize('NFKC').toLowerCase());
    expect(
      Array.from({ length: normalized.value.length }, (_, i) => [
        points.slice(normalized.start(i), normalized.end(i)).join(''),
        normalized.value[i],
      ]),
    ).toStrictEqual(expected);
  });

  it('joins to a unit everything that normalization may join to the character before it', () => {
    // Characters that follow another in a canonical decomposition: composition may join them to what precedes.
    const points = everyCodePoint();
    const seconds = new Set<string>();
    for (const point of points) {
      const decomposed = point.normalize('NFD');
      if (decomposed !== point) for (const second of Array.from(decomposed).slice(1)) seconds.add(second);
    }
    // A character of combining class above 1 moves before a mark of class 1 (U+0334) that follows it.
    const reorders = (point: string) => `a${point}\u0334`.normalize('NFD') !== `a${point}\u0334`;
    const unsafe = points.filter((point) => {
      if (joinsPrevious(point)) return false;
      const first = String.fromCodePoint(point.normalize('NFKC').normalize('NFD').codePointAt(0) ?? 0);
      return seconds.has(first) || reorders(first);
    });
    expect(unsafe.map(hex)).toStrictEqual([]);
    expect([...seconds].filter((second) => !joinsPrevious(second)).map(hex)).toStrictEqual([]);
  });

  it('relies on no code point lowercasing to fewer UTF-16 units, and only İ to more', () => {
    const changed = everyCodePoint().filter((point) => point.toLowerCase().length !== point.length);
    expect(changed.map((point) => [hex(point), point.toLowerCase().length - point.length])).toStrictEqual([
      ['130', 1],
    ]);
  });
});

const anyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'grapheme-composite', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom(
      ..."aeAİıΣσﬁＢ½ㄱㅏㄳ가ｶﾞ゛か\u3099\u0301\u0316\u0345\u1161\u11A8 '-…😀🏽\u200DǄ㍻\u0E33\u0EB3".split(
        '',
      ),
      '\u{16D63}',
      '\u{16D67}',
    ),
    maxLength: 30,
  }),
);

describe('normalizeWithOffsets properties', () => {
  test.prop([anyText], { numRuns: 3000 })(
    'cuts the original into consecutive pieces whose normalizations make up the normalized text',
    (text) => {
      const { normalized, points, out } = pieces(text);
      expect(normalized.exact).toBe(true);
      expect(normalized.value).toBe(text.normalize('NFKC').toLowerCase().replaceAll('ς', 'σ'));
      expect(out.map((piece) => piece.start)).toStrictEqual(out.map((_, i) => out[i - 1]?.end ?? 0));
      expect(out.at(-1)?.end ?? 0).toBe(points.length);
      for (const piece of out) expect(foldCase(piece.original.normalize('NFKC'))).toBe(piece.normalized);
    },
  );
});
