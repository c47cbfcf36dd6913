import { describe, expect, it } from 'vitest';
import { createTokenizer, itemText, stopwordLists, tokenize } from '../../../lib/search/tokenizer.ts';

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

describe('itemText', () => {
  it('joins name, description and tags so no two words glue together', () => {
    const text = itemText({ name: 'Trail', description: 'Boot', tags: ['outdoor', 'rain-proof'] });
    expect(plain(text)).toStrictEqual(['trail', 'boot', 'outdoor', 'rain', 'proof']);
  });

  it('gives the name alone when the description and tags are empty', () => {
    expect(plain(itemText({ name: 'Lamp', description: '', tags: [] }))).toStrictEqual(['lamp']);
  });
});
