// `npm run bench:ranking`: what `prefix` and `typos` do to ranking quality, on query sets made from Cranfield's 225
// queries by a seeded generator (the sets are not committed; the generator is, so every run makes the same ones):
//   whole      the queries as written;
//   as typed   each query cut inside its last word of 4+ letters, after its first 3 letters (what a user has typed
//              so far), the words after it dropped; a query without such a word is kept whole;
//   misspelled one random edit (insert, delete, substitute, swap two adjacent letters) in about a third of the words
//              of 5+ letters (at least one word per query when it has one).
// Each set is ranked with and without its option by the service's own ranking: the query expanded by `expandQuery`
// against the collection's term dictionary, then exact BM25 over the expanded terms — what POST /retrieve returns
// (test/integration/dictionary.test.ts checks the DynamoDB-backed retrieval equal to it), computed in memory.
// Scored with the collection's nDCG@10 and MAP@100 (cranfield.ts). Options: BENCH_RANKING_SEED (20261124).
import { dictionaryInMemory, expandQuery } from '../../lib/search/read/expand.ts';
import { indexInMemory } from '../../lib/search/read/rank.ts';
import { itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { evaluate, loadCranfield } from './cranfield.ts';
import { prng } from './synthetic.ts';

const SEED = Number(process.env.BENCH_RANKING_SEED ?? 20261124);
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** The query cut inside its last word of 4+ letters, after the first 3 (or undefined when it has none). */
export function asTyped(query: string): string | undefined {
  const parts = query.trim().split(/\s+/);
  for (let i = parts.length - 1; i >= 0; i--) {
    const word = parts[i] ?? '';
    const letters = word.replace(/[^A-Za-z]/g, '');
    if (letters.length >= 4) return [...parts.slice(0, i), letters.slice(0, 3)].join(' ');
  }
  return undefined;
}

/** One random edit of `word`: insert, delete, substitute or swap two adjacent letters. */
function edit(word: string, random: () => number): string {
  const at = Math.floor(random() * word.length);
  const letter = LETTERS[Math.floor(random() * LETTERS.length)] ?? 'e';
  switch (Math.floor(random() * 4)) {
    case 0:
      return word.slice(0, at) + letter + word.slice(at);
    case 1:
      return word.slice(0, at) + word.slice(at + 1);
    case 2:
      return word.slice(0, at) + (letter === word[at] ? 'q' : letter) + word.slice(at + 1);
    default: {
      const i = Math.min(at, word.length - 2);
      return word.slice(0, i) + (word[i + 1] ?? '') + (word[i] ?? '') + word.slice(i + 2);
    }
  }
}

/** About a third of the query's words of 5+ letters with one random edit each (at least one when it has one). */
export function misspelled(query: string, random: () => number): string {
  const parts = query.trim().split(/\s+/);
  const long = parts.flatMap((word, i) => (/^[A-Za-z]{5,}$/.test(word) ? [i] : []));
  const chosen = new Set(long.filter(() => random() < 1 / 3));
  if (chosen.size === 0 && long.length > 0) chosen.add(long[Math.floor(random() * long.length)] ?? 0);
  return parts.map((word, i) => (chosen.has(i) ? edit(word, random) : word)).join(' ');
}

const collection = await loadCranfield();
// As bench:retrieval loads it: name = title (≤ 200 characters), description = text.
const docs = collection.docs.map((doc) => ({
  id: doc.id,
  tokens: tokenize(
    itemText({ name: doc.title.trim().slice(0, 200).trim() || 'untitled', description: doc.text, tags: [] }),
  ),
}));
const rank = indexInMemory(docs);
const df = new Map<string, number>();
for (const { tokens } of docs) for (const term of new Set(tokens)) df.set(term, (df.get(term) ?? 0) + 1);
// Completions run on the words before stemming (contract §8.3): the dictionary holds the indexed terms, as the
// service's does.
const dictionary = dictionaryInMemory(df);

const random = prng(SEED);
const variants = collection.queries.map((query) => ({
  id: query.id,
  whole: query.text,
  typed: asTyped(query.text) ?? query.text,
  misspelled: misspelled(query.text, random),
}));
const textOf = new Map<string, string>();
const setOf = (kind: 'whole' | 'typed' | 'misspelled') => ({
  ...collection,
  queries: collection.queries.map((query, i) => {
    const key = `${kind}:${query.id}`;
    textOf.set(key, variants[i]?.[kind] ?? query.text);
    return { ...query, text: key };
  }),
});
const ranked = (options: { prefix?: boolean; typos?: 0 | 1 | 2 }) => async (key: string, depth: number) => {
  const { weights } = await expandQuery(textOf.get(key) ?? '', options, dictionary);
  return rank(weights, depth).map((result) => result.id);
};

const rows: [string, string, Awaited<ReturnType<typeof evaluate>>][] = [];
for (const [set, kind, options] of [
  ['whole', 'whole', {}],
  ['whole', 'whole', { prefix: true }],
  ['as typed', 'typed', {}],
  ['as typed', 'typed', { prefix: true }],
  ['misspelled', 'misspelled', {}],
  ['misspelled', 'misspelled', { typos: 1 }],
  ['misspelled', 'misspelled', { typos: 2 }],
] as const) {
  const scores = await evaluate(ranked(options), setOf(kind));
  rows.push([set, JSON.stringify(options), scores]);
}
console.log(
  `Cranfield, 225 queries, seed ${SEED} (examples: "${variants[0]?.typed}", "${variants[0]?.misspelled}")\n`,
);
console.log('| queries | options | nDCG@10 | MAP@100 |\n|---|---|---|---|');
for (const [set, options, { ndcgAt10, mapAt100 }] of rows)
  console.log(`| ${set} | \`${options}\` | ${ndcgAt10.toFixed(3)} | ${mapAt100.toFixed(3)} |`);
