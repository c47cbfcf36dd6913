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
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDictionaryTerm } from '../../lib/search/format/keys.ts';
import { dictionaryInMemory, expandQuery } from '../../lib/search/read/expand.ts';
import { indexInMemory } from '../../lib/search/read/rank.ts';
import { createTokenizer, indexTerms, itemText } from '../../lib/search/text/tokenizer.ts';
import { envNumber, ROOT } from './common.ts';
import { cranfieldWrite, evaluate, loadCranfield } from './cranfield.ts';
import { prng } from './synthetic.ts';
import { winkEngine } from './wink.ts';

const SEED = envNumber('BENCH_RANKING_SEED', 20261124);
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

/** The term dictionary of indexed documents: each term of the dictionary (no exact forms) with its df. */
function dictionaryOf(docs: readonly { tokens: readonly string[] }[]) {
  const df = new Map<string, number>();
  for (const { tokens } of docs)
    for (const term of new Set(tokens)) if (isDictionaryTerm(term)) df.set(term, (df.get(term) ?? 0) + 1);
  return dictionaryInMemory(df);
}

const collection = await loadCranfield();
// As bench:retrieval loads it: name = title (≤ 200 characters), description = text; indexed as the service indexes
// an item (stems, and exact forms beside them).
const docs = collection.docs.map((doc) => ({ id: doc.id, ...indexTerms(itemText(cranfieldWrite(doc))) }));
const rank = indexInMemory(docs);
// Completions run on the words before stemming (contract §8.3): the dictionary holds the indexed terms, as the
// service's does.
const dictionary = dictionaryOf(docs);

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
  const { weights, groups } = await expandQuery(textOf.get(key) ?? '', options, dictionary);
  return rank(weights, depth, groups).map((result) => result.id);
};

const rows: [string, string, Awaited<ReturnType<typeof evaluate>>][] = [];
for (const [set, kind, options] of [
  ['whole', 'whole', {}],
  ['whole', 'whole', { prefix: true }],
  ['as typed', 'typed', {}],
  ['as typed', 'typed', { prefix: true }],
  ['misspelled', 'misspelled', {}],
  ['misspelled', 'misspelled', { prefix: true }],
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
  console.log(`| ${set} | \`${options}\` | ${ndcgAt10.toFixed(4)} | ${mapAt100.toFixed(4)} |`);

// Known items: README files of the packages in node_modules (sorted by path, the first 300 with 100 words or more)
// loaded as items (name = the package, description = the README's first 5,000 characters); a query is three words
// of one README as written (4+ letters, in 2 to 5 % of the READMEs: neither unique nor common), drawn by the same
// seeded generator, and the README is the one right answer. MRR@10 of the service's ranking against
// wink-bm25-text-search over the same words without stemming (same normalization and stopwords).
const unstemmed = createTokenizer({ stopwords: 'classic45', stem: false });
/** Package folders of node_modules (scoped ones too), as paths relative to the project. */
const packages = readdirSync(join(ROOT, 'node_modules')).flatMap((name) =>
  name.startsWith('@')
    ? readdirSync(join(ROOT, 'node_modules', name)).map((inner) => `node_modules/${name}/${inner}`)
    : [`node_modules/${name}`],
);
const readmes = packages
  .map((folder) => `${folder}/README.md`)
  .filter((path) => existsSync(join(ROOT, path)))
  .sort()
  .map((path, i) => ({
    id: i + 1,
    name: path.split('/').slice(1, -1).join('/').slice(0, 200),
    description: readFileSync(join(ROOT, path), 'utf8').slice(0, 5000),
  }))
  .filter((item) => unstemmed(item.description).length >= 100)
  .slice(0, 300);
const texts = readmes.map((item) => ({ id: item.id, text: itemText({ ...item, tags: [] }) }));
const indexed = texts.map(({ id, text }) => ({ id, ...indexTerms(text) }));
const serviceRank = indexInMemory(indexed);
const readmeDictionary = dictionaryOf(indexed);
const wink = winkEngine();
const surface = texts.map(({ id, text }) => ({ id, words: unstemmed(text) }));
for (const { id, words } of surface) wink.addDoc({ body: words.join(' ') }, id);
wink.consolidate(9);
const docFreq = new Map<string, number>();
for (const { words } of surface)
  for (const word of new Set(words)) docFreq.set(word, (docFreq.get(word) ?? 0) + 1);
const [low, high] = [Math.ceil(surface.length * 0.02), Math.floor(surface.length * 0.05)];
let service = 0;
let reference = 0;
let asked = 0;
const reciprocal = (ids: number[], target: number) => {
  const at = ids.indexOf(target);
  return at >= 0 && at < 10 ? 1 / (at + 1) : 0;
};
for (const { id, words } of surface) {
  const candidates = [...new Set(words)].filter((word) => {
    const n = docFreq.get(word) ?? 0;
    return word.length >= 4 && /^[a-z]+$/.test(word) && n >= low && n <= high;
  });
  if (candidates.length < 3) continue;
  const picked: string[] = [];
  while (picked.length < 3) {
    const word = candidates[Math.floor(random() * candidates.length)] ?? '';
    if (!picked.includes(word)) picked.push(word);
  }
  const query = picked.join(' ');
  asked++;
  const { weights, groups } = await expandQuery(query, {}, readmeDictionary);
  service += reciprocal(
    serviceRank(weights, 10, groups).map((result) => result.id),
    id,
  );
  reference += reciprocal(
    wink.search(unstemmed(query).join(' '), 10).map(([doc]) => Number(doc)),
    id,
  );
}
console.log(
  `\nKnown items: ${surface.length} READMEs, ${asked} queries of 3 words in ${low}–${high} READMEs each\n\n| ranking | MRR@10 |\n|---|---|\n| this service (stems, exact forms beside them) | ${(service / asked).toFixed(3)} |\n| wink-bm25-text-search, no stemming | ${(reference / asked).toFixed(3)} |`,
);
