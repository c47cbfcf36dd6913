// The Cranfield collection (../shared/data/cranfield, see its README), its scoring (nDCG@10, MAP@100) and its
// documents as the benchmarks create them.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writableFields } from '../../lib/items/merge-patch.ts';
import type { ItemRepository } from '../../lib/items/repository.ts';
import {
  dictionaryInMemory,
  expandQuery,
  indexInMemory,
  indexTerms,
  isExactForm,
} from '../../lib/search/index.ts';

type CranfieldDoc = { id: number; title: string; text: string };
interface Cranfield {
  docs: CranfieldDoc[];
  /** `id` is the judgment id qrels.tsv uses. */
  queries: { id: number; text: string }[];
  /** Per query: doc id → code 1 (complete answer) … 4 (minimal interest). */
  qrels: ReadonlyMap<number, ReadonlyMap<number, number>>;
}

const DIR =
  process.env.CRANFIELD_DIR ?? fileURLToPath(new URL('../../../shared/data/cranfield/', import.meta.url));
const readLines = async (file: string) =>
  (await readFile(join(DIR, file), 'utf8')).split('\n').filter((line) => line.trim() !== '');

/** The collection; code −1 (once per query) counts as 1, as its README says. */
export async function loadCranfield(): Promise<Cranfield> {
  const docs = (await readLines('docs.jsonl')).map((line) => JSON.parse(line));
  const queries = (await readLines('queries.jsonl')).map((line) => JSON.parse(line));
  const qrels = new Map<number, Map<number, number>>();
  for (const line of (await readLines('qrels.tsv')).slice(1)) {
    const [queryId = 0, docId = 0, code = 0] = line.split('\t').map(Number);
    qrels.set(queryId, (qrels.get(queryId) ?? new Map()).set(docId, code === -1 ? 1 : code));
  }
  return { docs, queries, qrels };
}

/** Graded gain 2^g − 1 with g = 5 − code; unjudged documents gain nothing. */
const gain = (code: number | undefined): number => (code === undefined ? 0 : 2 ** (5 - code) - 1);
const dcg = (gains: readonly number[]): number => gains.reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);

/** Ranks one query's text: doc ids, best first, up to `depth`. */
type RankFn = (queryText: string, depth: number) => Promise<number[]> | number[];

/**
 * Mean nDCG@10 (the ideal ranks the query's judged docs by gain) and MAP@100 (a doc is relevant when it has any
 * judgment) of `rankFn` over every query; a query with no results scores 0.
 */
export async function evaluate(rankFn: RankFn, { queries, qrels }: Cranfield) {
  let [ndcg, ap] = [0, 0];
  for (const query of queries) {
    const ranking = await rankFn(query.text, 100);
    const judgments = qrels.get(query.id) ?? new Map<number, number>();
    const gains = [...judgments.values()].map(gain).sort((a, b) => b - a);
    const ideal = dcg(gains.slice(0, 10));
    if (ideal > 0) ndcg += dcg(ranking.slice(0, 10).map((id) => gain(judgments.get(id)))) / ideal;
    let [hits, precision] = [0, 0];
    for (const [i, id] of ranking.slice(0, 100).entries())
      if (judgments.has(id)) precision += ++hits / (i + 1);
    if (judgments.size > 0) ap += precision / judgments.size;
  }
  return { ndcgAt10: ndcg / queries.length, mapAt100: ap / queries.length };
}

/**
 * A document as the benchmarks create it: name = title, description = text. A name is at most 200 characters (16
 * titles are longer: cut) and required (2 titles are empty: "untitled"); the text starts with the title anyway.
 */
export const cranfieldWrite = (doc: CranfieldDoc) => ({
  name: doc.title.trim().slice(0, 200).trim() || 'untitled',
  description: doc.text.slice(0, 5000),
  tags: [],
  attributes: {},
});

/** The sentence the benchmarks' appending edit adds to a Cranfield item's description. */
export const REVISION = ' Revised: measured again with newer apparatus.';
/** A description with REVISION appended, kept within the 5,000 characters a description may have. */
export const revised = (description: string) => `${description.slice(0, 4960)}${REVISION}`;
/** An edit of an item's description (`change` of it), written through the repository. */
export const editOf = (items: ItemRepository, change: (description: string) => string) => (id: number) =>
  items.update(id, (current) => ({ ...writableFields(current), description: change(current.description) }));

/**
 * Exhaustive BM25 over `docs` in memory, indexed and queried as the service indexes and queries (stems, exact forms
 * beside them, the dictionary for `prefix` and `typos`): each query's top `depth`, with scores.
 */
export function rankerInMemory(docs: readonly { id: number; text: string }[]) {
  const terms = docs.map(({ id, text }) => ({ id, ...indexTerms(text) }));
  const df = new Map<string, number>();
  for (const { tokens } of terms)
    for (const term of new Set(tokens)) if (!isExactForm(term)) df.set(term, (df.get(term) ?? 0) + 1);
  const [rank, dictionary] = [indexInMemory(terms), dictionaryInMemory(df)];
  return async (query: string, depth: number, options: { prefix?: boolean; typos?: 0 | 1 | 2 } = {}) => {
    const { weights, wordOf } = await expandQuery(query, options, dictionary);
    return rank(weights, depth, wordOf);
  };
}
