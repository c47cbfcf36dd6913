// `npm run bench:ranking`: ranking quality of `prefix` and `typos` on Cranfield's queries as written, as typed and
// misspelled (seeded), ranked in memory as POST /retrieve ranks; and known-item MRR@10 against wink-bm25-text-search.
import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTokenizer, itemText } from '../../lib/search/index.ts';
import { envNumber, prng, ROOT } from './common.ts';
import { cranfieldWrite, evaluate, loadCranfield, rankerInMemory } from './cranfield.ts';
import { winkEngine } from './wink.ts';

const SEED = envNumber('BENCH_RANKING_SEED', 20261124);
const random = prng(SEED);
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;

/** The query cut inside its last word of 4+ letters, after the first 3 (whole when it has none). */
function asTyped(query: string): string {
  const parts = query.trim().split(/\s+/);
  for (let i = parts.length - 1; i >= 0; i--) {
    const letters = (parts[i] ?? '').replace(/[^A-Za-z]/g, '');
    if (letters.length >= 4) return [...parts.slice(0, i), letters.slice(0, 3)].join(' ');
  }
  return query;
}

/** One random edit of `word`: insert, delete, substitute or swap two adjacent letters. */
function edit(word: string): string {
  const at = Math.floor(random() * word.length);
  const letter = LETTERS[Math.floor(random() * LETTERS.length)] ?? 'e';
  const kind = Math.floor(random() * 4);
  if (kind === 0) return word.slice(0, at) + letter + word.slice(at);
  if (kind === 1) return word.slice(0, at) + word.slice(at + 1);
  if (kind === 2) return word.slice(0, at) + (letter === word[at] ? 'q' : letter) + word.slice(at + 1);
  const i = Math.min(at, word.length - 2);
  return word.slice(0, i) + (word[i + 1] ?? '') + (word[i] ?? '') + word.slice(i + 2);
}

/** About a third of the query's words of 5+ letters with one random edit each (at least one when it has one). */
function misspelled(query: string): string {
  const parts = query.trim().split(/\s+/);
  const long = parts.flatMap((word, i) => (/^[A-Za-z]{5,}$/.test(word) ? [i] : []));
  const chosen = new Set(long.filter(() => random() < 1 / 3));
  if (chosen.size === 0 && long.length > 0) chosen.add(pick(long));
  return parts.map((word, i) => (chosen.has(i) ? edit(word) : word)).join(' ');
}

/** A ranking's ids alone: what nDCG, MAP and MRR read. */
const idsOf =
  (rank: ReturnType<typeof rankerInMemory>) =>
  async (query: string, depth: number, options: { prefix?: boolean; typos?: 0 | 1 | 2 } = {}) =>
    (await rank(query, depth, options)).map((result) => result.id);

const collection = await loadCranfield();
const cranfield = idsOf(
  rankerInMemory(collection.docs.map((doc) => ({ id: doc.id, text: itemText(cranfieldWrite(doc)) }))),
);
// The misspellings drawn in query order.
const setOf = (text: (query: string) => string) =>
  collection.queries.map((query) => ({ ...query, text: text(query.text) }));
const sets = { whole: collection.queries, typed: setOf(asTyped), misspelled: setOf(misspelled) };
const rows = [
  ['whole', 'whole', {}],
  ['whole', 'whole', { prefix: true }],
  ['as typed', 'typed', {}],
  ['as typed', 'typed', { prefix: true }],
  ['misspelled', 'misspelled', {}],
  ['misspelled', 'misspelled', { prefix: true }],
  ['misspelled', 'misspelled', { typos: 1 }],
  ['misspelled', 'misspelled', { typos: 2 }],
] as const;
console.log(
  `Cranfield, 225 queries, seed ${SEED} (examples: "${sets.typed[0]?.text}", "${sets.misspelled[0]?.text}")\n`,
);
console.log('| queries | options | nDCG@10 | MAP@100 |\n|---|---|---|---|');
for (const [set, kind, options] of rows) {
  const rankFn = (query: string, depth: number) => cranfield(query, depth, options);
  const { ndcgAt10, mapAt100 } = await evaluate(rankFn, { ...collection, queries: sets[kind] });
  console.log(
    `| ${set} | \`${JSON.stringify(options)}\` | ${ndcgAt10.toFixed(4)} | ${mapAt100.toFixed(4)} |`,
  );
}

// Known items: the first 300 README files (by path) of 100 words or more in node_modules (name = the package,
// description = the first 5,000 characters); a query is three words of one README (4+ letters, in 2–5 % of the
// READMEs), the README the one right answer; wink ranks the same words without stemming.
const unstemmed = createTokenizer({ stopwords: 'classic45', stem: false });
const readmes = globSync('node_modules/{*,@*/*}/README.md', { cwd: ROOT })
  .sort()
  .map((path, i) => ({
    id: i + 1,
    name: path.split('/').slice(1, -1).join('/').slice(0, 200),
    description: readFileSync(join(ROOT, path), 'utf8').slice(0, 5000),
  }))
  .filter((item) => unstemmed(item.description).length >= 100)
  .slice(0, 300)
  .map((item) => ({ id: item.id, text: itemText({ ...item, tags: [] }) }));
const service = idsOf(rankerInMemory(readmes));
const wink = winkEngine();
const surface = readmes.map(({ id, text }) => ({ id, words: unstemmed(text) }));
for (const { id, words } of surface) wink.addDoc({ body: words.join(' ') }, id);
wink.consolidate(9);
const docFreq = new Map<string, number>();
for (const { words } of surface)
  for (const word of new Set(words)) docFreq.set(word, (docFreq.get(word) ?? 0) + 1);
const [low, high] = [Math.ceil(surface.length * 0.02), Math.floor(surface.length * 0.05)];
/** 1 / rank of `target` among the top 10 `ids`, 0 when it is not among them. */
const reciprocal = (ids: number[], target: number) =>
  ids.includes(target) ? 1 / (ids.indexOf(target) + 1) : 0;
let [ours, reference, asked] = [0, 0, 0];
for (const { id, words } of surface) {
  const candidates = [...new Set(words)].filter((word) => {
    const n = docFreq.get(word) ?? 0;
    return word.length >= 4 && /^[a-z]+$/.test(word) && n >= low && n <= high;
  });
  if (candidates.length < 3) continue;
  const picked = new Set<string>();
  while (picked.size < 3) picked.add(pick(candidates));
  const query = [...picked].join(' ');
  asked++;
  const winkIds = wink.search(unstemmed(query).join(' '), 10).map(([doc]) => Number(doc));
  ours += reciprocal(await service(query, 10), id);
  reference += reciprocal(winkIds, id);
}
console.log(
  `\nKnown items: ${surface.length} READMEs, ${asked} queries of 3 words in ${low}–${high} READMEs each\n\n| ranking | MRR@10 |\n|---|---|\n| this service (stems, exact forms beside them) | ${(ours / asked).toFixed(3)} |\n| wink-bm25-text-search, no stemming | ${(reference / asked).toFixed(3)} |`,
);
