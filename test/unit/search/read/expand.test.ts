import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { dfClass, LENGTH_INDEX_MIN_LENGTH } from '../../../../lib/search/format/keys.ts';
import { lessGhosts } from '../../../../lib/search/read/dictionary.ts';
import {
  allowedEdits,
  CORRECTIONS_PER_WORD,
  completions,
  completionWeight,
  corrections,
  dictionaryInMemory,
  expandQuery,
  lastWord,
  mostFrequent,
  PREFIX_TERMS,
  STEM_WEIGHT,
  WHOLE_WORD_COMPLETION,
  WHOLE_WORD_MIN_LENGTH,
} from '../../../../lib/search/read/expand.ts';
import { editDistance } from '../../../../lib/search/text/edits.ts';
import { MAX_TOKEN_LENGTH, tokenize } from '../../../../lib/search/text/tokenizer.ts';

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

const termsOf = (list: { term: string }[]) => list.map(({ term }) => term);

describe('expandQuery', () => {
  it('is the query’s own terms, weighted by count, without options', async () => {
    const { weights } = await expandQuery('boot boot hike', {}, dictionary);
    expect([...weights]).toStrictEqual([
      ['boot', 2],
      ['hike', 1],
    ]);
  });

  it('gives a word whose stem cut a suffix its exact form at weight 1 and its stem at half, as one word (§8.6)', async () => {
    const { weights, wordOf, origins } = await expandQuery('boots hiking hiking', {}, dictionary);
    // "boots" loses only its plural: no exact form. "hiking" keeps "=hiking" beside "hike".
    expect([...weights]).toStrictEqual([
      ['boot', 1],
      ['hike', 2 * STEM_WEIGHT],
      ['=hiking', 2],
    ]);
    expect(wordOf.get('=hiking')).toBe('hike');
    expect(wordOf.get('hike')).toBe('hike');
    expect(origins.get('=hiking')).toStrictEqual({ kind: 'exact' });
    expect(origins.get('hike')).toStrictEqual({ kind: 'stem' });
    expect(origins.get('boot')).toStrictEqual({ kind: 'exact' });
    // A stem written as a word of its own too is exact, at the weight of its words.
    const both = await expandQuery('hike hiking', {}, dictionary);
    expect([...both.weights]).toStrictEqual([
      ['hike', 1 + STEM_WEIGHT],
      ['=hiking', 1],
    ]);
    expect(both.origins.get('hike')).toStrictEqual({ kind: 'exact' });
  });

  it('completes the last word, before stemming, with the terms that begin with it, weighted by the share typed', async () => {
    const { weights, origins, wordOf } = await expandQuery('boot hik', { prefix: true }, dictionary);
    expect([...weights]).toStrictEqual([
      ['boot', 1],
      ['hik', 1],
      ['hike', 3 / 4],
      ['hiker', 3 / 5],
    ]);
    expect(completionWeight(3, 4)).toBe(3 / 4);
    expect(origins.get('hiker')).toStrictEqual({ kind: 'prefix' });
    // One word: the typed word's own term and its completions (contract §8.6).
    expect([...wordOf]).toStrictEqual([
      ['boot', 'boot'],
      ['hik', 'hik'],
      ['hike', 'hik'],
      ['hiker', 'hik'],
    ]);
    // "hi" reaches every hi… term (in term order); a term with no postings left is not one.
    const hi = await expandQuery('hi', { prefix: true }, dictionary);
    expect([...hi.weights.keys()]).toStrictEqual(['hi', 'hike', 'hiker', 'hill']);
    expect((await expandQuery('de', { prefix: true }, dictionary)).weights.has('dead')).toBe(false);
  });

  it(`weighs a tenth of the share typed the completions of a last word of ${WHOLE_WORD_MIN_LENGTH}+ code points whose stem is indexed`, async () => {
    // "hike" is indexed: the user may have typed it in full; "hiker" still matches, after the items that hold "hike".
    const { weights, wordOf } = await expandQuery('boot hike', { prefix: true }, dictionary);
    expect(weights.get('hiker')).toBeCloseTo(WHOLE_WORD_COMPLETION * (4 / 5), 12);
    expect(wordOf.get('hiker')).toBe('hike');
    // "hik" is not a word of the index, and "hil" is too short to be taken as whole.
    expect((await expandQuery('hil', { prefix: true }, dictionary)).weights.get('hill')).toBe(3 / 4);
    const withHil = dictionaryInMemory(
      new Map([
        ['hil', 1],
        ['hill', 9],
      ]),
    );
    expect((await expandQuery('hil', { prefix: true }, withHil)).weights.get('hill')).toBe(3 / 4);
    expect(completionWeight(4, 5, true)).toBeCloseTo(0.08, 12);
  });

  it('completes a stopword typed as the last word, and needs two code points', async () => {
    expect(lastWord('what is the')).toBe('the');
    expect([...(await expandQuery('h', { prefix: true }, dictionary)).weights]).toStrictEqual([['h', 1]]);
    expect(lastWord('Hiking, ')).toBe('hiking');
    expect(lastWord('...')).toBeUndefined();
  });

  it(`keeps at most ${PREFIX_TERMS} completions, the most postings first, then in term order`, async () => {
    const dfs = new Map<string, number>(Array.from({ length: 80 }, (_, i) => [`ab${i}`, i % 10]));
    const { weights } = await expandQuery('ab', { prefix: true }, dictionaryInMemory(dfs));
    const completed = [...weights.keys()].filter((t) => t !== 'ab');
    const exhaustive = [...dfs]
      .filter(([, df]) => df > 0)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, PREFIX_TERMS)
      .map(([term]) => term)
      .sort();
    expect(completed).toStrictEqual(exhaustive);
    // df 9 … 4 fill 48 places; the limit falls in class 1 (df 2–3): of the eight of df 3, the first two in term order.
    expect(completed.filter((t) => dfs.get(t) === 3)).toStrictEqual(['ab13', 'ab23']);
    expect(completed.filter((t) => (dfs.get(t) ?? 0) < 3)).toStrictEqual([]);
  });

  it('ranks terms by df class, and reads the dfs of the class where the limit falls only', async () => {
    const dfs = new Map([
      ['a', 40],
      ['b', 33],
      ['c', 20],
      ['d', 17],
      ['e', 16],
      ['f', 3],
      ['g', 0],
    ]);
    const read: string[][] = [];
    const dfOf = async (terms: readonly string[]) => {
      read.push([...terms]);
      return new Map(terms.map((term) => [term, dfs.get(term) ?? 0]));
    };
    const classed = [...dfs].map(([term, df]) => ({ term, dfClass: df > 0 ? dfClass(df) : undefined }));
    // Classes: a, b 5 (32–63); c, d, e 4 (16–31); f 1; g unknown (its df class was removed), read first.
    expect(termsOf(await mostFrequent(classed, 4, dfOf))).toStrictEqual(['a', 'b', 'c', 'd']);
    expect(read).toStrictEqual([['g'], ['c', 'd', 'e']]);
    read.length = 0;
    expect(termsOf(await mostFrequent(classed, 2, dfOf))).toStrictEqual(['a', 'b']);
    expect(read).toStrictEqual([['g']]);
    read.length = 0;
    // As many as there are, or more: every term, nothing read.
    expect(termsOf(await mostFrequent(classed, 7, dfOf))).toStrictEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(read).toStrictEqual([]);
    // Ties at the cut go in term order.
    expect(
      termsOf(
        await mostFrequent(
          ['z', 'y', 'x'].map((term) => ({ term, dfClass: 2 })),
          2,
          async (terms) => new Map(terms.map((term) => [term, 5])),
        ),
      ),
    ).toStrictEqual(['x', 'y']);
  });

  it('corrects a stem as its word counts, not as its stem weighs beside an exact form', async () => {
    // "hikeing" → stem "hike", exact form "=hikeing"; "hiker" is one edit from "hike": weight 1 / 2, not 1 / 4.
    const { weights, wordOf } = await expandQuery('hikeing', { typos: 1 }, dictionary);
    expect(weights.get('hike')).toBe(STEM_WEIGHT);
    expect(weights.get('=hikeing')).toBe(1);
    expect(weights.get('hiker')).toBe(0.5);
    expect(wordOf.get('hiker')).toBe(wordOf.get('=hikeing'));
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
    const { wordOf } = await expandQuery('waterprof botts', { typos: 1 }, dictionary);
    expect(wordOf.get('waterproof')).toBe('waterprof');
    expect(wordOf.get('boat')).toBe(wordOf.get('boot'));
    expect(wordOf.get('boot')).toBe(tokenize('botts')[0]);
  });

  it('never corrects terms shorter than 4, and gives 4–7 at most one edit', () => {
    expect(allowedEdits('bot', 2)).toBe(0);
    expect(allowedEdits('boot', 2)).toBe(1);
    expect(allowedEdits('waterpro', 2)).toBe(2);
    expect(allowedEdits('waterpro', 0)).toBe(0);
  });

  it('asks for no correction shorter than the length index holds (keys.ts: it leaves shorter terms out)', () => {
    for (let length = 1; length <= MAX_TOKEN_LENGTH; length++)
      for (const typos of [1, 2]) {
        const edits = allowedEdits('a'.repeat(length), typos);
        if (edits > 0)
          expect(length - edits, `${length} code points, typos ${typos}`).toBeGreaterThanOrEqual(
            LENGTH_INDEX_MIN_LENGTH,
          );
      }
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
    // The 20 most frequent of the 40 at one edit: tenta … tentt (dfs 40 … 21).
    expect([...weights.keys()].slice(1)).toStrictEqual(
      Array.from({ length: 20 }, (_, i) => `tent${String.fromCodePoint(97 + i)}`),
    );
  });

  it('reads no df when the corrections fit, and only those at the distance where the cut falls', async () => {
    const dfs = new Map([
      ['tents', 5],
      ...Array.from(
        { length: 30 },
        (_, i) => [`tex${String.fromCodePoint(97 + (i % 26))}${i >= 26 ? 'q' : ''}`, i + 1] as const,
      ),
    ]);
    const read: string[][] = [];
    const reader = {
      ...dictionaryInMemory(dfs),
      dfOf: async (terms: readonly string[]) => {
        read.push([...terms]);
        return new Map(terms.map((term) => [term, dfs.get(term) ?? 0]));
      },
    };
    expect(await corrections(reader, 'tent', 1)).toStrictEqual([
      { term: 'tents', edits: 1 },
      { term: 'text', edits: 1 },
    ]);
    expect(read).toStrictEqual([]);
    // "texts" is 2 edits from every tex?: 1 at distance 1 fits whole, 19 of the 26 at distance 2 are ranked by df.
    const found = await corrections(reader, 'texts', 2);
    expect(found).toHaveLength(CORRECTIONS_PER_WORD);
    expect(read.flat().every((term) => term.startsWith('tex'))).toBe(true);
  });
});

/**
 * Every term within `maxEdits` of `term` by a comparison with each term of the vocabulary (edits.ts, checked against
 * a search of the edits themselves), ranked as §8.4 says (closest, most frequent, term order), cut, by distance.
 */
function exhaustiveCorrections(vocabulary: ReadonlyMap<string, number>, term: string, maxEdits: number) {
  return (
    [...vocabulary]
      // The terms typo tolerance reaches (keys.ts): every one within the edits a query term is allowed (tested below).
      .filter(([t, df]) => t !== term && df > 0 && [...t].length >= LENGTH_INDEX_MIN_LENGTH)
      .map(([t, df]) => ({ term: t, df, edits: editDistance(term, t) }))
      .filter(({ edits }) => edits <= maxEdits)
      .sort((a, b) => a.edits - b.edits || b.df - a.df || (a.term < b.term ? -1 : 1))
      .slice(0, CORRECTIONS_PER_WORD)
      .sort((a, b) => a.edits - b.edits || (a.term < b.term ? -1 : 1))
      .map(({ term: t, edits }) => ({ term: t, edits }))
  );
}

/** `word` with one edit at code point `at`: kind 0 substitutes, 1 deletes, 2 inserts before, 3 swaps with the next. */
function edited(word: string, at: number, kind: number, letter: string): string {
  const points = [...word];
  const i = Math.min(at, points.length - (kind === 2 ? 0 : 1));
  if (kind === 0) points[i] = letter;
  else if (kind === 1) points.splice(i, 1);
  else if (kind === 2) points.splice(i, 0, letter);
  else if (i + 1 < points.length) [points[i], points[i + 1]] = [points[i + 1] ?? '', points[i] ?? ''];
  return points.join('');
}

describe('corrections properties', () => {
  const letter = fc.constantFrom('a', 'b', 'e', 'o', 's', 'é', '北', '😀');
  const word = fc.array(letter, { minLength: 3, maxLength: 10 }).map((points) => points.join(''));
  // Terms one or two edits from a few roots, the edits at the ends (where a read of the first letters or of the last
  // one alone would miss them) as often as inside.
  const edit = fc.record({
    at: fc.oneof(fc.constantFrom(0, 1, 2, 99), fc.nat(10)),
    kind: fc.nat(3),
    letter,
  });
  const vocabularyOf = fc
    .tuple(
      fc.array(word, { minLength: 1, maxLength: 4 }),
      fc.array(fc.tuple(fc.nat(3), edit, fc.option(edit), fc.nat(50)), { maxLength: 60 }),
    )
    .map(([roots, variants]) => {
      const vocabulary = new Map<string, number>(roots.map((root, i) => [root, i + 1]));
      for (const [r, first, second, df] of variants) {
        const root = roots[r % roots.length] ?? 'boot';
        let term = edited(root, first.at, first.kind, first.letter);
        if (second) term = edited(term, second.at, second.kind, second.letter);
        if (term.length > 0) vocabulary.set(term, df);
      }
      return vocabulary;
    });

  test.prop([vocabularyOf, fc.nat(3), edit, fc.constantFrom(1, 2)], { numRuns: 500 })(
    'finds exactly the terms an exhaustive search of the vocabulary finds, wherever the edit is',
    async (vocabulary, r, typo, maxEdits) => {
      const roots = [...vocabulary.keys()];
      const term = edited(roots[r % roots.length] ?? 'boot', typo.at, typo.kind, typo.letter);
      if ([...term].length < 4) return;
      expect(await corrections(dictionaryInMemory(vocabulary), term, maxEdits)).toStrictEqual(
        exhaustiveCorrections(vocabulary, term, maxEdits),
      );
    },
  );
});

describe('completions over an index with ghosts (the shrunk set: postings of items that no longer hold a term)', () => {
  // Terms of one prefix with their stored dfs (postings) and ghosts (at most their dfs): the completions through the
  // dictionary less its ghosts are those of a dictionary holding only the postings that count.
  const entries = fc.uniqueArray(
    fc.record({
      suffix: fc.stringMatching(/^[a-e]{1,3}$/),
      df: fc.integer({ min: 1, max: 40 }),
      ghosts: fc.nat({ max: 40 }),
    }),
    { selector: (entry) => entry.suffix, minLength: 1, maxLength: 30 },
  );
  test.prop([entries, fc.integer({ min: 1, max: 12 })])(
    'are those of the postings that count, whatever the ghosts and the limit',
    async (list, limit) => {
      const stored = new Map(list.map(({ suffix, df }) => [`zq${suffix}`, df]));
      const ghosts = new Map(list.map(({ suffix, df, ghosts }) => [`zq${suffix}`, Math.min(df, ghosts)]));
      const counting = new Map(
        list.map(({ suffix, df }) => [`zq${suffix}`, df - (ghosts.get(`zq${suffix}`) ?? 0)]),
      );
      const less = lessGhosts(dictionaryInMemory(stored), Promise.resolve(ghosts));
      expect(await completions(less, 'zq', limit)).toStrictEqual(
        await completions(dictionaryInMemory(counting), 'zq', limit),
      );
      const terms = [...stored.keys()];
      expect(await less.dfOf(terms)).toStrictEqual(await dictionaryInMemory(counting).dfOf(terms));
    },
  );

  it('would rank by the stored dfs without it: the case above is not equal by luck', async () => {
    const stored = new Map([
      ['zqa', 9],
      ['zqb', 5],
      ['zqc', 1],
    ]);
    const ghosts = new Map([['zqa', 8]]);
    const counting = new Map([
      ['zqa', 1],
      ['zqb', 5],
      ['zqc', 1],
    ]);
    expect((await completions(dictionaryInMemory(counting), 'zq', 1)).map(({ term }) => term)).toStrictEqual([
      'zqb',
    ]);
    expect((await completions(dictionaryInMemory(stored), 'zq', 1)).map(({ term }) => term)).toStrictEqual([
      'zqa',
    ]);
    expect(
      (await completions(lessGhosts(dictionaryInMemory(stored), Promise.resolve(ghosts)), 'zq', 1)).map(
        ({ term }) => term,
      ),
    ).toStrictEqual(['zqb']);
  });
});
