import { describe, expect, it } from 'vitest';
import {
  allowedEdits,
  CORRECTIONS_PER_WORD,
  dictionaryInMemory,
  expandQuery,
  lastWord,
  PREFIX_TERMS,
} from '../../../../lib/search/read/expand.ts';
import { tokenize } from '../../../../lib/search/text/tokenizer.ts';

const dictionary = dictionaryInMemory(
  new Map([
    ['hike', 7],
    ['hiker', 3],
    ['hill', 9],
    ['boot', 12],
    ['waterproof', 4],
    ['bot', 2],
    ['boat', 5],
    ['boost', 1],
    ['dead', 0],
  ]),
);

describe('expandQuery', () => {
  it('is the query’s own terms, weighted by count, without options', async () => {
    const { weights } = await expandQuery('boot boot hiking', {}, dictionary);
    expect([...weights]).toStrictEqual([
      ['boot', 2],
      ['hike', 1],
    ]);
  });

  it('completes the last word, before stemming, with the terms that begin with it, weighted by the share typed', async () => {
    const { weights, origins, groups } = await expandQuery('boot hik', { prefix: true }, dictionary);
    expect([...weights]).toStrictEqual([
      ['boot', 1],
      ['hik', 1],
      ['hike', 3 / 4],
      ['hiker', 3 / 5],
    ]);
    expect(origins.get('hiker')).toStrictEqual({ kind: 'prefix' });
    // One word: the typed word's own term and its completions (contract §8.6).
    expect([...groups]).toStrictEqual([
      ['boot', 'boot'],
      ['hik', 'hik'],
      ['hike', 'hik'],
      ['hiker', 'hik'],
    ]);
    // "hi" reaches every hi… term, the most postings first; a term with no postings left is not one.
    const hi = await expandQuery('hi', { prefix: true }, dictionary);
    expect([...hi.weights.keys()]).toStrictEqual(['hi', 'hill', 'hike', 'hiker']);
    expect((await expandQuery('de', { prefix: true }, dictionary)).weights.has('dead')).toBe(false);
  });

  it('completes a stopword typed as the last word, and needs two code points', async () => {
    expect(lastWord('what is the')).toBe('the');
    expect([...(await expandQuery('h', { prefix: true }, dictionary)).weights]).toStrictEqual([['h', 1]]);
    expect(lastWord('Hiking, ')).toBe('hiking');
    expect(lastWord('...')).toBeUndefined();
  });

  it(`keeps at most ${PREFIX_TERMS} completions, the most postings first, then in term order`, async () => {
    const many = dictionaryInMemory(
      new Map(Array.from({ length: 80 }, (_, i) => [`ab${i}`, i % 10] as const)),
    );
    const { weights } = await expandQuery('ab', { prefix: true }, many);
    const completed = [...weights.keys()].filter((t) => t !== 'ab');
    expect(completed).toHaveLength(PREFIX_TERMS);
    expect(completed.slice(0, 8)).toStrictEqual([
      'ab19',
      'ab29',
      'ab39',
      'ab49',
      'ab59',
      'ab69',
      'ab79',
      'ab9',
    ]);
  });

  it('corrects each term within its edits, weighted 1 / (1 + edits), closest then most frequent', async () => {
    const { weights, origins } = await expandQuery('waterprof botts', { typos: 1 }, dictionary);
    expect(weights.get('waterproof')).toBe(0.5);
    expect(origins.get('waterproof')).toStrictEqual({ kind: 'typo', of: 'waterprof', edits: 1 });
    // "botts" stems to "bott": boot, boat (a substitution each) and bot (a deletion); boost is two edits away.
    expect(weights.get('boot')).toBe(0.5);
    expect(weights.get('boat')).toBe(0.5);
    expect(weights.get('bot')).toBe(0.5);
    expect(weights.has('boost')).toBe(false);
    // Two edits are for terms of 8 code points and more.
    expect((await expandQuery('wtrproof', { typos: 2 }, dictionary)).weights.get('waterproof')).toBe(1 / 3);
    expect((await expandQuery('wtrproof', { typos: 1 }, dictionary)).weights.has('waterproof')).toBe(false);
    // A term of 4–7 code points gets one edit whatever typos says.
    expect((await expandQuery('hkie', { typos: 2 }, dictionary)).weights.get('hike')).toBe(0.5);
    expect((await expandQuery('hkier', { typos: 2 }, dictionary)).weights.has('hill')).toBe(false);
    // A correction is one word with the term it corrects (contract §8.6).
    const { groups } = await expandQuery('waterprof botts', { typos: 1 }, dictionary);
    expect(groups.get('waterproof')).toBe('waterprof');
    expect(groups.get('boat')).toBe(groups.get('boot'));
    expect(groups.get('boot')).toBe(tokenize('botts')[0]);
  });

  it('never corrects terms shorter than 4, and gives 4–7 at most one edit', () => {
    expect(allowedEdits('bot', 2)).toBe(0);
    expect(allowedEdits('boot', 2)).toBe(1);
    expect(allowedEdits('waterpro', 2)).toBe(2);
    expect(allowedEdits('waterpro', 0)).toBe(0);
  });

  it('keeps a query term exact when it is also another term’s correction, and a term reached twice at its best', async () => {
    const { weights } = await expandQuery('boot boat', { typos: 1 }, dictionary);
    expect(weights.get('boot')).toBe(1);
    expect(weights.get('boat')).toBe(1);
    // boost: one edit from boot and from boat? boost → boot is a deletion (1); boat → boost is 2.
    expect(weights.get('boost')).toBe(0.5);
  });

  it(`keeps at most ${CORRECTIONS_PER_WORD} corrections a word`, async () => {
    const many = dictionaryInMemory(
      new Map(
        Array.from(
          { length: 40 },
          (_, i) => [`tent${String.fromCodePoint(97 + (i % 26))}${i >= 26 ? 'x' : ''}`, 40 - i] as const,
        ),
      ),
    );
    const { weights } = await expandQuery('tent', { typos: 1 }, many);
    expect(weights.size).toBe(1 + CORRECTIONS_PER_WORD);
    expect(weights.has('tenta')).toBe(true);
  });
});
