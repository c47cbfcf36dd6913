// The Cranfield collection (../shared/data/cranfield, see its README) and its scoring, nDCG@10 and MAP@100.
// `npm run bench:tokenizers` ranks it with the in-memory BM25 reference for each tokenizer variant.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { indexInMemory } from '../../lib/search/read/rank.ts';
import { createTokenizer, itemText, stopwordLists, type Tokenizer } from '../../lib/search/text/tokenizer.ts';

export interface CranfieldDoc {
  id: number;
  title: string;
  text: string;
}
export interface Cranfield {
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

/** The collection; code −1 (once per query) counts as `minusOneCode`: 1, as its README says. */
export async function loadCranfield(minusOneCode = 1): Promise<Cranfield> {
  const docs = (await readLines('docs.jsonl')).map((line) => JSON.parse(line));
  const queries = (await readLines('queries.jsonl')).map((line) => JSON.parse(line));
  const qrels = new Map<number, Map<number, number>>();
  for (const line of (await readLines('qrels.tsv')).slice(1)) {
    const [queryId = 0, docId = 0, code = 0] = line.split('\t').map(Number);
    qrels.set(queryId, (qrels.get(queryId) ?? new Map()).set(docId, code === -1 ? minusOneCode : code));
  }
  return { docs, queries, qrels };
}

/** Graded gain 2^g − 1 with g = 5 − code; unjudged documents gain nothing. */
const gain = (code: number | undefined): number => (code === undefined ? 0 : 2 ** (5 - code) - 1);
const dcg = (gains: readonly number[]): number => gains.reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);

/** Ranks one query's text: doc ids, best first, up to `depth`. */
export type RankFn = (queryText: string, depth: number) => Promise<number[]> | number[];

/**
 * Mean nDCG@10 (the ideal ranks the query's judged docs by gain) and MAP@100 (a doc is relevant when it has any
 * judgment) of `rankFn` over every query; a query with no results scores 0.
 */
export async function evaluate(rankFn: RankFn, { queries, qrels }: Cranfield) {
  let [ndcg, ap] = [0, 0];
  for (const query of queries) {
    const ranking = await rankFn(query.text, 100);
    const judgments = qrels.get(query.id) ?? new Map<number, number>();
    const ideal = dcg(
      [...judgments.values()]
        .map(gain)
        .sort((a, b) => b - a)
        .slice(0, 10),
    );
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

if (import.meta.main) {
  const collection = await loadCranfield();
  /** The collection README's reference tokenizer: lowercase `[a-z0-9]+` runs minus a stopword list, no stemming. */
  const ascii =
    (stopwords: 'classic45' | 'lucene33'): Tokenizer =>
    (text) =>
      (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((token) => !stopwordLists[stopwords].has(token));
  const rankFn = (
    tokenizer: Tokenizer,
    textOf: (doc: CranfieldDoc) => string,
    docs = collection.docs,
  ): RankFn => {
    const rank = indexInMemory(docs.map((doc) => ({ id: doc.id, tokens: tokenizer(textOf(doc)) })));
    return (query, depth) => rank(tokenizer(query), depth).map((result) => result.id);
  };
  const variants: [string, Tokenizer][] = [
    ['ascii [a-z0-9]+, classic45, no stem (reference)', ascii('classic45')],
    ['ascii [a-z0-9]+, lucene33, no stem', ascii('lucene33')],
  ];
  for (const stopwords of ['none', 'lucene33', 'classic45'] as const)
    for (const stem of [false, true])
      variants.push([
        `unicode, ${stopwords}, ${stem ? 'porter' : 'no stem'}${stopwords === 'classic45' && stem ? ' (default)' : ''}`,
        createTokenizer({ stopwords, stem }),
      ]);
  const fields: Record<string, (doc: CranfieldDoc) => string> = {
    text: (doc) => doc.text,
    'itemText(title, text)': (doc) => itemText({ name: doc.title, description: doc.text, tags: [] }),
  };
  const f = (x: number) => x.toFixed(3);
  console.log('| indexed text | tokenizer | nDCG@10 | MAP@100 |\n|---|---|---|---|');
  for (const [field, textOf] of Object.entries(fields))
    for (const [name, tokenizer] of variants) {
      const { ndcgAt10, mapAt100 } = await evaluate(rankFn(tokenizer, textOf), collection);
      console.log(`| ${field} | ${name} | ${f(ndcgAt10)} | ${f(mapAt100)} |`);
    }
  // The reference tokens give nDCG@10 0.522 with the README's gains, not its 0.537; code −1 as g = 5 gives 0.537.
  const asPublished = await loadCranfield(0);
  const scores = await evaluate(
    rankFn(ascii('classic45'), (doc) => doc.text, asPublished.docs),
    asPublished,
  );
  console.log(
    `\nDiagnostic — reference tokens on text, code −1 as g = 5: nDCG@10 ${f(scores.ndcgAt10)}, MAP@100 ${f(scores.mapAt100)}`,
  );
}
