import { fc, test } from '@fast-check/vitest';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  citationPassage,
  descriptionPassage,
  ELLIPSIS,
  type Highlight,
  HighlightsSchema,
  highlights,
  PASSAGE_LENGTH,
  PassageSchema,
} from '../../../../lib/search/read/highlight.ts';
import { itemText, tokenize, wordSpans } from '../../../../lib/search/text/tokenizer.ts';

const points = (text: string) => Array.from(text);
const length = (text: string) => points(text).length;
const slice = (text: string, start: number, end: number) => points(text).slice(start, end).join('');
/** What each match of a highlight covers. */
const covered = (entry: { text: string; matches: readonly { start: number; end: number }[] }) =>
  entry.matches.map(({ start, end }) => slice(entry.text, start, end));
const item = (name: string, description = '', tags: string[] = []) => ({ name, description, tags });
/** `count` filler words, none of them a matched term. */
const filler = (count: number, prefix = 'w') =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`).join(' ');

describe('highlights', () => {
  it('gives one entry per matched field, name then description then tags, with whole name and joined tags', () => {
    const result = highlights(
      item('Trail Boot', 'A waterproof boot for rainy hikes.', ['outdoor', 'hiking-boots']),
      tokenize('waterproof hiking boots'),
    );
    expect(result).toStrictEqual([
      { field: 'name', text: 'Trail Boot', matches: [{ start: 6, end: 10 }] },
      {
        field: 'description',
        text: 'A waterproof boot for rainy hikes.',
        matches: [
          { start: 2, end: 12 },
          { start: 13, end: 17 },
          { start: 28, end: 33 },
        ],
      },
      {
        field: 'tags',
        text: 'outdoor, hiking-boots',
        matches: [
          { start: 9, end: 15 },
          { start: 16, end: 21 },
        ],
      },
    ]);
    expect(v.parse(HighlightsSchema, result)).toStrictEqual(result);
  });

  it('leaves out the fields that did not match, and gives nothing when none did', () => {
    const boot = item('Trail Boot', 'Light and dry.', ['outdoor']);
    expect(highlights(boot, ['light']).map((entry) => entry.field)).toStrictEqual(['description']);
    expect(highlights(boot, ['outdoor']).map((entry) => entry.field)).toStrictEqual(['tags']);
    expect(highlights(boot, ['tent'])).toStrictEqual([]);
  });

  it.each([
    ['precomposed and decomposed accents', 'Café and Cafe\u0301', ['café'], ['Café', 'Cafe\u0301']],
    ['each Han character as a word', '北京大学の靴', ['京', '靴'], ['京', '靴']],
    [
      'words next to emoji, offsets in code points',
      '😀boots👍🏽 hiking',
      ['boot', 'hike'],
      ['boots', 'hiking'],
    ],
    ['a ligature', 'ﬁre pit', ['fire'], ['ﬁre']],
    ['full-width letters', 'ＢＯＯＴＳ!', ['boot'], ['ＢＯＯＴＳ']],
    ['the Turkish dotted capital I', 'İstanbul boots', ['i̇stanbul'], ['İstanbul']],
    ['a Greek word with a final sigma', 'ΟΔΟΣ ΣΟΦΙΑ', ['οδοσ'], ['ΟΔΟΣ']],
    // 𝝇 (mathematical final sigma) is ς after NFKC: one term with σ, whatever comes before or after it.
    ['final sigmas written any way', '𠀀𝝇 ΟΔΟΣ.Α οδος', ['𠀀', 'σ', 'οδοσ'], ['𠀀', '𝝇', 'ΟΔΟΣ', 'οδος']],
    ['a possessive', "Earth's boots", ['earth'], ["Earth's"]],
    ['apostrophes inside a word', 'O’Brien’s hut', ['obrien'], ['O’Brien’s']],
    ['words cut from an ellipsis', '…hiking…', ['hike'], ['hiking']],
  ])('spans %s', (_, name, terms, words) => {
    const [entry] = highlights(item(name), terms);
    expect(entry && covered(entry)).toStrictEqual(words);
  });

  it('gives the exact code point offsets around astral characters', () => {
    expect(highlights(item('😀boots👍🏽 hiking'), ['boot', 'hike'])[0]?.matches).toStrictEqual([
      { start: 1, end: 6 },
      { start: 9, end: 15 },
    ]);
  });

  it('merges the spans of words that share a character', () => {
    // ½ normalizes to 1⁄2: "x½y" is the words x1 and 2y, both holding the ½.
    expect(highlights(item('x½y'), ['x1', '2y'])).toStrictEqual([
      { field: 'name', text: 'x½y', matches: [{ start: 0, end: 3 }] },
    ]);
  });
});

describe('description passages', () => {
  it('is the whole description up to 240 characters, with no marks', () => {
    const description = `boots ${'x'.repeat(PASSAGE_LENGTH - 6)}`;
    expect(length(description)).toBe(PASSAGE_LENGTH);
    expect(descriptionPassage(description, ['boot'])).toStrictEqual({
      text: description,
      matches: [{ start: 0, end: 5 }],
    });
  });

  it('cuts a longer one at word boundaries, marking the cut side', () => {
    const description = `boots ${'x'.repeat(PASSAGE_LENGTH - 6)} y`;
    expect(descriptionPassage(description, ['boot'])).toStrictEqual({
      text: `boots ${'x'.repeat(PASSAGE_LENGTH - 6)}${ELLIPSIS}`,
      matches: [{ start: 0, end: 5 }],
    });
    const ending = `y ${'x'.repeat(PASSAGE_LENGTH - 6)} boots`;
    expect(descriptionPassage(ending, ['boot'])).toStrictEqual({
      text: `${ELLIPSIS}${'x'.repeat(PASSAGE_LENGTH - 6)} boots`,
      matches: [{ start: PASSAGE_LENGTH - 4, end: PASSAGE_LENGTH + 1 }],
    });
  });

  it('centres the matched words in their context, with … on both sides', () => {
    const description = `${filler(60, 'a')} waterproof boots ${filler(60, 'b')}`;
    const passage = descriptionPassage(description, ['waterproof', 'boot']);
    const text = passage?.text ?? '';
    expect(text.startsWith(ELLIPSIS) && text.endsWith(ELLIPSIS)).toBe(true);
    const inner = text.slice(1, -1);
    expect(length(inner)).toBeLessThanOrEqual(PASSAGE_LENGTH);
    expect(description.includes(` ${inner} `)).toBe(true);
    const [before = '', after = ''] = inner.split(' waterproof boots ');
    expect(Math.abs(length(before) - length(after))).toBeLessThanOrEqual(8);
    expect(passage && covered(passage)).toStrictEqual(['waterproof', 'boots']);
  });

  it('holds the most distinct matched terms, not the most matches', () => {
    const description = `boots boots boots boots ${filler(80)} waterproof boots ${filler(80, 'v')}`;
    const passage = descriptionPassage(description, ['waterproof', 'boot']);
    expect(passage && covered(passage)).toStrictEqual(['waterproof', 'boots']);
  });

  it('takes the earliest of equally good places', () => {
    const description = `${filler(10, 'a')} boots ${filler(80, 'b')} boots ${filler(80, 'c')}`;
    const text = descriptionPassage(description, ['boot'])?.text ?? '';
    expect(text.startsWith('a0 a1')).toBe(true);
  });

  it('counts 240 characters as code points', () => {
    // U+20000 is a Han character above U+FFFF: a word of its own, one code point, two UTF-16 units.
    const han = '\u{20000}';
    const description = `${han.repeat(300)}boots${han.repeat(300)}`;
    const passage = descriptionPassage(description, ['boot']);
    expect(passage).toStrictEqual({
      text: `${ELLIPSIS}${han.repeat(117)}boots${han.repeat(118)}${ELLIPSIS}`,
      matches: [{ start: 118, end: 123 }],
    });
    expect(length(passage?.text ?? '')).toBe(PASSAGE_LENGTH + 2);
  });

  it('is undefined when the description does not match', () => {
    expect(descriptionPassage('Light and dry.', ['boot'])).toBeUndefined();
  });
});

describe('citationPassage', () => {
  it('is the description passage when the description matched', () => {
    const description = `${filler(60)} waterproof ${filler(60, 'v')}`;
    const passage = citationPassage(item('Trail Boot', description), ['waterproof']);
    expect(passage).toBe(descriptionPassage(description, ['waterproof'])?.text);
    expect(v.parse(PassageSchema, passage)).toBe(passage);
  });

  it('is the name when the description did not match', () => {
    expect(citationPassage(item('Trail Boot', 'Light and dry.'), ['boot'])).toBe('Trail Boot');
  });
});

// ---- Properties ----

const VOCABULARY = [
  ...'boots boot hiking hike waterproof trail rain tent the and a of'.split(' '),
  ...['Café', 'Cafe\u0301', 'ﬁre', 'ＢＯＯＴＳ', 'İstanbul', 'ΟΔΟΣ', "Earth's", 'O’Brien', 'naïve', '1.5'],
  ...['北', '京', '大学', '😀', 'x½y', '한국'],
];
const SEPARATORS = [' ', ' ', ' ', ', ', '. ', '-', '\n', '😀', ' … ', ''];
const prose = (maxWords: number) =>
  fc
    .array(fc.tuple(fc.constantFrom(...VOCABULARY), fc.constantFrom(...SEPARATORS)), { maxLength: maxWords })
    .map((parts) => parts.flat().join(''));
const tag = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
const proseItem = fc.record({
  name: prose(8).map((name) => name.trim() || 'x'),
  description: prose(120),
  tags: fc.uniqueArray(fc.oneof(tag, fc.constantFrom('boots', 'hiking-boots', 'rain')), { maxLength: 5 }),
});
const unicodeItem = fc.record({
  name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  description: fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 300 }),
    fc.string({ unit: 'binary', maxLength: 300 }),
  ),
  tags: fc.uniqueArray(tag, { maxLength: 3 }),
});
/** Some of the item's own terms, and perhaps terms it does not hold. */
const withTerms = (items: fc.Arbitrary<{ name: string; description: string; tags: string[] }>) =>
  items.chain((it) =>
    fc.tuple(
      fc.constant(it),
      fc
        .tuple(fc.subarray([...new Set(tokenize(itemText(it)))]), fc.subarray(['tent', 'zzz', 'σ', 'ς']))
        .map(([own, others]) => [...own, ...others]),
    ),
  );

const FIELDS: readonly string[] = ['name', 'description', 'tags'];

/** The span rules every highlight keeps, whatever the text. */
function checkSpans(entry: Highlight, matched: ReadonlySet<string>) {
  const size = length(entry.text);
  let previousEnd = 0;
  for (const { start, end } of entry.matches) {
    expect(start).toBeGreaterThanOrEqual(previousEnd);
    expect(end).toBeGreaterThan(start);
    expect(end).toBeLessThanOrEqual(size);
    previousEnd = end;
    // The text of a span is matched words.
    const own = tokenize(slice(entry.text, start, end));
    expect([...matched].some((term) => own.includes(term))).toBe(true);
  }
  // Every matched word of the text is in a span.
  for (const word of wordSpans(entry.text)) {
    if (word.term === undefined || !matched.has(word.term)) continue;
    expect(entry.matches.some(({ start, end }) => start <= word.start && word.end <= end)).toBe(true);
  }
}

/** The description's text at code points [start, end), marked as a passage is. */
const marked = (description: string, start: number, end: number) =>
  `${start > 0 ? ELLIPSIS : ''}${slice(description, start, end)}${end < length(description) ? ELLIPSIS : ''}`;

/** Every window of at most `limit` code points from a word start (or 0) to a word end (or the end), marked. */
function windowsOf(description: string, limit: number): string[] {
  const size = length(description);
  const words = wordSpans(description);
  return [0, ...words.map((w) => w.start)].flatMap((start) =>
    [size, ...words.map((w) => w.end)]
      .filter((end) => end > start && end - start <= limit)
      .map((end) => marked(description, start, end)),
  );
}

describe('highlight properties', () => {
  test.prop([withTerms(fc.oneof(proseItem, unicodeItem))], { numRuns: 400 })(
    'spans are sorted, apart, inside the text, on matched words, and miss none',
    ([it, terms]) => {
      const matched = new Set(terms);
      const result = highlights(it, terms);
      expect(v.parse(HighlightsSchema, result)).toStrictEqual(result);
      const fields = result.map((entry) => entry.field);
      expect(fields).toStrictEqual(
        [...new Set(fields)].sort((a, b) => FIELDS.indexOf(a) - FIELDS.indexOf(b)),
      );
      for (const entry of result) {
        checkSpans(entry, matched);
        if (entry.field === 'name') expect(entry.text).toBe(it.name);
        if (entry.field === 'tags') expect(entry.text).toBe(it.tags.join(', '));
      }
      const fieldMatched = (text: string) =>
        wordSpans(text).some((w) => w.term !== undefined && matched.has(w.term));
      expect(fields.includes('name')).toBe(fieldMatched(it.name));
      expect(fields.includes('tags')).toBe(fieldMatched(it.tags.join(', ')));
    },
  );

  test.prop([withTerms(proseItem)], { numRuns: 400 })(
    'spans cut the text exactly at words: tokenizing the pieces between the cuts gives the same terms',
    ([it, terms]) => {
      for (const entry of highlights(it, terms)) {
        const words = wordSpans(entry.text);
        // A character that normalizes into two words (½) cannot be cut between them.
        if (words.some((word, i) => i > 0 && word.start < (words[i - 1]?.end ?? 0))) continue;
        const cuts = [0, ...entry.matches.flatMap(({ start, end }) => [start, end]), length(entry.text)];
        const pieces = cuts.slice(1).map((end, i) => slice(entry.text, cuts[i] ?? 0, end));
        expect(pieces.flatMap((piece) => tokenize(piece))).toStrictEqual(tokenize(entry.text));
      }
    },
  );

  test.prop([withTerms(fc.oneof(proseItem, unicodeItem))], { numRuns: 400 })(
    'the description is its own passage up to 240 characters, else a marked window of at most 240 at word boundaries',
    ([it, terms]) => {
      const entry = highlights(it, terms).find((e) => e.field === 'description');
      const hasMatch = wordSpans(it.description).some((w) => w.term !== undefined && terms.includes(w.term));
      expect(entry !== undefined).toBe(hasMatch);
      if (!entry) return;
      const size = length(it.description);
      if (size <= PASSAGE_LENGTH) {
        expect(entry.text).toBe(it.description);
        return;
      }
      const windows = windowsOf(it.description, PASSAGE_LENGTH);
      expect(windows).toContain(entry.text);
      expect(citationPassage(it, terms)).toBe(entry.text);
    },
  );

  // Small limits give many windows to compare against every one of them.
  test.prop([withTerms(proseItem), fc.integer({ min: 4, max: 60 })], { numRuns: 400 })(
    'the passage holds as many distinct matched terms as the best window',
    ([it, terms], limit) => {
      const matched = new Set(terms);
      const words = wordSpans(it.description);
      const size = length(it.description);
      const distinctIn = (start: number, end: number) =>
        new Set(
          words
            .filter((w) => w.start >= start && w.end <= end && w.term !== undefined && matched.has(w.term))
            .map((w) => w.term),
        ).size;
      let best = 0;
      for (const start of [0, ...words.map((w) => w.start)]) {
        for (const end of [size, ...words.map((w) => w.end)]) {
          if (end > start && end - start <= limit) best = Math.max(best, distinctIn(start, end));
        }
      }
      const passage = descriptionPassage(it.description, terms, limit);
      expect(passage === undefined).toBe(best === 0);
      if (!passage) return;
      if (size <= limit) expect(passage.text).toBe(it.description);
      else expect(windowsOf(it.description, limit)).toContain(passage.text);
      const held = new Set(
        passage.matches.flatMap(({ start, end }) => tokenize(slice(passage.text, start, end))),
      );
      expect([...held].filter((term) => matched.has(term)).length).toBeGreaterThanOrEqual(best);
    },
  );
});
