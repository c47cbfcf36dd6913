import { fc, test } from '@fast-check/vitest';
import { stemmer } from 'stemmer';
import { describe, expect, it } from 'vitest';
import {
  createTokenizer,
  indexTerms,
  isExactForm,
  itemText,
  minimalStem,
  stopwordLists,
  tokenize,
  wordSpans,
  wordSpansMatching,
  wordTerms,
} from '../../../../lib/search/text/tokenizer.ts';

const plain = createTokenizer({ stopwords: 'none', stem: false });

describe('tokenizer normalization and splitting', () => {
  it.each([
    ['folds the ﬁ ligature and full-width letters with NFKC', 'ﬁre ＢＯＯＴＳ Ｘ１', ['fire', 'boots', 'x1']],
    [
      'keeps accents and composes decomposed ones',
      'Café Cafe\u0301 CRÈME brûlée',
      ['café', 'café', 'crème', 'brûlée'],
    ],
    ['lowercases Greek and Cyrillic', 'Αθήνα МОСКВА', ['αθήνα', 'москва']],
    ['keeps combining marks inside Devanagari words', 'हिन्दी भाषा', ['हिन्दी', 'भाषा']],
    [
      'makes each Han and Hiragana character a word',
      '北京大学 東京タワーへ',
      ['北', '京', '大', '学', '東', '京', 'タワー', 'へ'],
    ],
    ['splits Hangul on spaces', '서울 타워', ['서울', '타워']],
    [
      'splits on hyphens, punctuation and decimal points',
      'lift-drag ratio: 1.5 (approx.)',
      ['lift', 'drag', 'ratio', '1', '5', 'approx'],
    ],
    ['keeps letters and digits together', 'B747 mp3 2D', ['b747', 'mp3', '2d']],
    [
      'drops possessive ’s and joins other apostrophes',
      "Earth's can't O’Brien students'",
      ['earth', 'cant', 'obrien', 'students'],
    ],
    ['ignores text with no letters or digits', ' -- !? … ', []],
  ])('%s', (_, text, expected) => {
    expect(plain(text)).toStrictEqual(expected);
  });

  it('drops words longer than 64 code points and keeps those of 64', () => {
    expect(plain(`${'é'.repeat(64)} ${'a'.repeat(65)} ok`)).toStrictEqual(['é'.repeat(64), 'ok']);
  });
});

describe('tokenizer stopwords', () => {
  const text = 'What are the effects of heat on the wing';

  it('keeps every word with no list', () => {
    expect(plain(text)).toStrictEqual(['what', 'are', 'the', 'effects', 'of', 'heat', 'on', 'the', 'wing']);
  });

  it('drops Lucene’s 33 English stopwords', () => {
    expect(createTokenizer({ stopwords: 'lucene33', stem: false })(text)).toStrictEqual([
      'what',
      'effects',
      'heat',
      'wing',
    ]);
  });

  it('drops the 45-word list, question words included', () => {
    expect(createTokenizer({ stopwords: 'classic45', stem: false })(text)).toStrictEqual([
      'effects',
      'heat',
      'wing',
    ]);
  });

  it('has lists of 33 and 45 distinct words, one within the other', () => {
    expect(stopwordLists.lucene33.size).toBe(33);
    expect(stopwordLists.classic45.size).toBe(45);
    expect([...stopwordLists.lucene33].every((word) => stopwordLists.classic45.has(word))).toBe(true);
  });
});

describe('tokenizer stemming', () => {
  const stemmed = createTokenizer({ stopwords: 'lucene33', stem: true });

  it('stems English words with Porter after removing stopwords', () => {
    expect(stemmed('The hiking boots were flowing experimentally')).toStrictEqual([
      'hike',
      'boot',
      'were',
      'flow',
      'experiment',
    ]);
  });

  it('leaves words that are not plain a–z alone', () => {
    expect(stemmed('cafés b747s наушники')).toStrictEqual(['cafés', 'b747s', 'наушники']);
  });

  it('is the default: classic45 stopwords and Porter stemming', () => {
    expect(tokenize('What are the best waterproof hiking boots?')).toStrictEqual([
      'best',
      'waterproof',
      'hike',
      'boot',
    ]);
  });
});

describe('exact forms beside stems (step 7)', () => {
  it('removes only a plural, as Lucene’s EnglishMinimalStemmer does', () => {
    const cases: [string, string][] = [
      ['boots', 'boot'],
      ['studies', 'study'],
      ['series', 'sery'],
      ['aies', 'aies'],
      ['shoes', 'shoes'],
      ['horses', 'horse'],
      ['toes', 'toes'],
      ['bus', 'bus'],
      ['glass', 'glass'],
      ['is', 'is'],
      ['flows', 'flow'],
      ['boot', 'boot'],
    ];
    for (const [word, light] of cases) expect(minimalStem(word), word).toBe(light);
  });

  it('keeps a word’s exact form where Porter cut a suffix of two code points or more', () => {
    expect(wordTerms('Experimental boots, hiking studies; cafés')).toStrictEqual([
      { term: 'experiment', exact: '=experimental' },
      { term: 'boot', exact: undefined },
      { term: 'hike', exact: '=hiking' },
      // Porter's "studi" is "study" with a letter changed: no suffix cut.
      { term: 'studi', exact: undefined },
      { term: 'cafés', exact: undefined },
    ]);
    expect(wordTerms('Experimental boots').map(({ term }) => term)).toStrictEqual(
      tokenize('Experimental boots'),
    );
    expect(isExactForm('=hiking')).toBe(true);
    expect(isExactForm('hike')).toBe(false);
  });

  it('indexes the exact forms beside the stems, the length counting words', () => {
    expect(indexTerms('the hiking boots of hikers')).toStrictEqual({
      tokens: ['hike', '=hiking', 'boot', 'hiker'],
      dl: 3,
    });
  });

  test.prop([fc.array(fc.constantFrom(...'hiking hikes flowed experimental a the boots café'.split(' ')))])(
    'gives tokenize’s terms, each word’s exact form right after its stem, and their number as the length',
    (list) => {
      const text = list.join(' ');
      const { tokens, dl } = indexTerms(text);
      expect(tokens.filter((token) => !isExactForm(token))).toStrictEqual(tokenize(text));
      expect(dl).toBe(tokenize(text).length);
      tokens.forEach((token, i) => {
        if (isExactForm(token)) expect(isExactForm(tokens[i - 1] ?? '=')).toBe(false);
      });
    },
  );
});

describe('itemText', () => {
  it('joins name, description and tags so no two words glue together', () => {
    const text = itemText({ name: 'Trail', description: 'Boot', tags: ['outdoor', 'rain-proof'] });
    expect(plain(text)).toStrictEqual(['trail', 'boot', 'outdoor', 'rain', 'proof']);
  });

  it('gives the name alone when the description and tags are empty', () => {
    expect(plain(itemText({ name: 'Lamp', description: '', tags: [] }))).toStrictEqual(['lamp']);
  });
});

/** A span's text: the code points of `text` from `start` to `end`. */
const spanText = (text: string, { start, end }: { start: number; end: number }) =>
  Array.from(text).slice(start, end).join('');

describe('wordSpans', () => {
  const spans = (text: string) => wordSpans(text).map((word) => [word.term, spanText(text, word)]);

  it.each([
    [
      'keeps plain words where they are',
      'Trail boots',
      [
        ['trail', 'Trail'],
        ['boot', 'boots'],
      ],
    ],
    [
      'spans a ligature and full-width letters as written',
      'ﬁre ＢＯＯＴＳ',
      [
        ['fire', 'ﬁre'],
        ['boot', 'ＢＯＯＴＳ'],
      ],
    ],
    [
      'spans precomposed and decomposed accents alike',
      'Café Cafe\u0301 crème',
      [
        ['café', 'Café'],
        ['café', 'Cafe\u0301'],
        ['crème', 'crème'],
      ],
    ],
    [
      'spans the dotted capital I, which lowercases to two code points',
      'İstanbul',
      [['i̇stanbul', 'İstanbul']],
    ],
    [
      'folds the final sigma of a Greek word',
      'ΟΔΟΣ Σ οδος',
      [
        ['οδοσ', 'ΟΔΟΣ'],
        ['σ', 'Σ'],
        ['οδοσ', 'οδος'],
      ],
    ],
    [
      'spans a possessive whole and apostrophes inside words',
      "Earth's O’Brien don't",
      [
        ['earth', "Earth's"],
        ['obrien', 'O’Brien'],
        ['dont', "don't"],
      ],
    ],
    [
      'makes each Han and Hiragana character a word',
      '北京 タワーへ',
      [
        ['北', '北'],
        ['京', '京'],
        ['タワー', 'タワー'],
        ['へ', 'へ'],
      ],
    ],
    [
      'leaves emoji next to words out of them',
      '😀boot👍🏽hike',
      [
        ['boot', 'boot'],
        ['hike', 'hike'],
      ],
    ],
    [
      'gives stopwords and over-long words no term',
      `the ${'a'.repeat(65)}`,
      [
        [undefined, 'the'],
        [undefined, 'a'.repeat(65)],
      ],
    ],
    [
      'spans Hangul jamo that compose into one syllable',
      'ㄱㅏㄳ 한',
      [
        ['갃', 'ㄱㅏㄳ'],
        ['한', '한'],
      ],
    ],
    [
      'puts a character that normalizes into two words in both spans',
      'x½y',
      [
        ['x1', 'x½'],
        ['2y', '½y'],
      ],
    ],
    ['spans an ellipsis-cut word without the ellipsis', '…hiking…', [['hike', 'hiking']]],
  ])('%s', (_, text, expected) => {
    expect(spans(text)).toStrictEqual(expected);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(wordSpans('😀😀 boot')).toStrictEqual([{ term: 'boot', start: 3, end: 7 }]);
  });
});

/** Strings that stress normalization: ligatures, full-width, accents both ways, jamo, kana marks, sigma, İ. */
const tricky = fc.string({
  unit: fc.constantFrom(
    ..."aeAEİıΣσςﬁＢ½ㄱㅏㄳ가각ｶﾞ゛か\u3099\u0301\u0316\u0345\u1161\u11A8 '’s-.…😀🏽\u200D🅐ⒶǄ㍻".split(''),
    '\u{1D400}',
    '\u{16D63}',
    '\u{16D67}',
  ),
  maxLength: 30,
});
const anyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'grapheme-composite', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  tricky,
);

describe('wordSpans properties', () => {
  test.prop([anyText], { numRuns: 2000 })('its terms are exactly tokenize’s', (text) => {
    expect(wordSpans(text).flatMap((word) => (word.term === undefined ? [] : [word.term]))).toStrictEqual(
      tokenize(text),
    );
  });

  test.prop([anyText], { numRuns: 2000 })('its spans are ordered, within the text and not empty', (text) => {
    const length = Array.from(text).length;
    let previous = { start: 0, end: 0 };
    for (const word of wordSpans(text)) {
      expect(word.start).toBeGreaterThanOrEqual(previous.start);
      expect(word.end).toBeGreaterThanOrEqual(previous.end);
      expect(word.start).toBeLessThan(word.end);
      expect(word.end).toBeLessThanOrEqual(length);
      previous = word;
    }
  });

  // `toLowerCase` writes a capital sigma as ς or σ by what is around it, past the word (`ΟΔΟΣ.Α`, `🅐Σ`): with the
  // final sigma folded, a span's text alone gives the term the word has in the whole text.
  test.prop([anyText], { numRuns: 2000 })('the text of each span tokenizes to its term', (text) => {
    for (const word of wordSpans(text)) {
      if (word.term === undefined) continue;
      expect(tokenize(spanText(text, word))).toContain(word.term);
    }
  });

  it.each(['ΟΔΟΣ.Α', '🅐Σ', 'ΟΔΟΣ Α', 'οδος.Α'])('gives %s’s words the terms they have alone', (text) => {
    for (const word of wordSpans(text)) expect(tokenize(spanText(text, word))).toStrictEqual([word.term]);
  });

  test.prop([anyText, fc.array(fc.constantFrom('fire', 'boot', 'a', 'x1', '갃', 'i̇', 'σ', 'ς', '北'))], {
    numRuns: 1000,
  })('wordSpansMatching keeps exactly the terms asked for', (text, extra) => {
    const all = wordSpans(text);
    const terms = new Set([...extra, ...all.filter((_, i) => i % 2 === 0).flatMap((w) => w.term ?? [])]);
    expect(wordSpansMatching(text, terms)).toStrictEqual(
      all.map((word) => ({
        ...word,
        term: word.term !== undefined && terms.has(word.term) ? word.term : undefined,
      })),
    );
  });

  const PORTER_SUFFIXES = [
    ...'ational tional enci anci izer bli alli entli eli ousli ization ation ator alism iveness fulness ousness'.split(
      ' ',
    ),
    ...'aliti iviti biliti logi icate ative alize iciti ical ful ness al ance ence er ic able ible ant ement'.split(
      ' ',
    ),
    ...'ment ent ion ou ism ate iti ous ive ize sses ies ss s eed ed ing y e ll'.split(' '),
  ];
  const englishLike = fc
    .tuple(fc.stringMatching(/^[a-z]{1,6}$/), fc.array(fc.constantFrom(...PORTER_SUFFIXES), { maxLength: 3 }))
    .map(([stem, suffixes]) => stem + suffixes.join(''));
  test.prop([fc.oneof(englishLike, fc.stringMatching(/^[a-z]{1,12}$/))], { numRuns: 3000 })(
    'Porter stemming keeps a word’s first letter (wordSpansMatching relies on it)',
    (word) => {
      expect(stemmer(word).charAt(0)).toBe(word.charAt(0));
    },
  );
});
