// Retrieval quality on the Cranfield collection (../shared/data/cranfield, see its README).
// `node scripts/bench/cranfield.ts` ranks with the in-memory BM25 reference and prints nDCG@10 and MAP@100
// for each tokenizer variant; the exported functions let any ranking (e.g. POST /retrieve) be scored alike.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { indexInMemory } from '../../lib/search/read/rank.ts';
import {
  createTokenizer,
  itemText,
  type StopwordList,
  stopwordLists,
  type Tokenizer,
} from '../../lib/search/text/tokenizer.ts';

export interface CranfieldDoc {
  id: number;
  title: string;
  author: string;
  bib: string;
  text: string;
}

/** Judgments of one query: doc id → code 1 (complete answer) … 4 (minimal interest). */
export type Judgments = ReadonlyMap<number, number>;

export interface Cranfield {
  docs: CranfieldDoc[];
  /** `id` (1..225) is the judgment id used by qrels.tsv; `label` is not. */
  queries: { id: number; label: string; text: string }[];
  qrels: ReadonlyMap<number, Judgments>;
}

export const DEFAULT_DIR =
  process.env.CRANFIELD_DIR ?? fileURLToPath(new URL('../../../shared/data/cranfield/', import.meta.url));

const readJsonLines = async <T>(path: string): Promise<T[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));

/**
 * Loads the collection. Code −1 (once per query) counts as code 1, as the README says; `minusOneCode` only
 * exists to show what the published reference figure implies (see the diagnostic row below).
 */
export async function loadCranfield(
  dir = DEFAULT_DIR,
  options: { minusOneCode?: number } = {},
): Promise<Cranfield> {
  const docs = await readJsonLines<CranfieldDoc>(join(dir, 'docs.jsonl'));
  const queries = await readJsonLines<Cranfield['queries'][number]>(join(dir, 'queries.jsonl'));
  const qrels = new Map<number, Map<number, number>>();
  const lines = (await readFile(join(dir, 'qrels.tsv'), 'utf8')).split('\n').slice(1);
  for (const line of lines) {
    if (line.trim() === '') continue;
    const [queryId, docId, code] = line.split('\t').map(Number);
    if (queryId === undefined || docId === undefined || code === undefined)
      throw new Error(`bad qrels line: ${line}`);
    const judgments = qrels.get(queryId) ?? new Map<number, number>();
    judgments.set(docId, code === -1 ? (options.minusOneCode ?? 1) : code);
    qrels.set(queryId, judgments);
  }
  return { docs, queries, qrels };
}

/** Graded gain 2^g − 1 with g = 5 − code; unjudged documents gain nothing. */
const gain = (code: number | undefined): number => (code === undefined ? 0 : 2 ** (5 - code) - 1);
const dcg = (gains: readonly number[]): number => gains.reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);

/** nDCG@10 of a ranking (doc ids, best first); the ideal ranks the query's judged docs by gain. */
function ndcgAt10(ranking: readonly number[], judgments: Judgments): number {
  const gains = [...judgments.values()].map(gain);
  const ideal = dcg(gains.sort((a, b) => b - a).slice(0, 10));
  return ideal === 0 ? 0 : dcg(ranking.slice(0, 10).map((id) => gain(judgments.get(id)))) / ideal;
}

/** Average precision over the first 100 of a ranking; a doc is relevant when it has any judgment. */
function averagePrecisionAt100(ranking: readonly number[], judgments: Judgments): number {
  if (judgments.size === 0) return 0;
  let hits = 0;
  let sum = 0;
  ranking.slice(0, 100).forEach((id, i) => {
    if (!judgments.has(id)) return;
    hits++;
    sum += hits / (i + 1);
  });
  return sum / judgments.size;
}

/**
 * Ranks one query's text: doc ids, best first, up to `depth` (100) of them. POST /retrieve caps topK at 50,
 * so a RankFn driving it yields MAP over its first 50 results — comparable between its own runs only.
 */
export type RankFn = (queryText: string, depth: number) => Promise<number[]> | number[];

/** Mean nDCG@10 and MAP@100 of `rankFn` over all 225 queries (a query with no results scores 0). */
export async function evaluate(
  rankFn: RankFn,
  collection?: Cranfield,
): Promise<{ ndcgAt10: number; mapAt100: number }> {
  const { queries, qrels } = collection ?? (await loadCranfield());
  let ndcg = 0;
  let ap = 0;
  for (const query of queries) {
    const ranking = await rankFn(query.text, 100);
    const judgments = qrels.get(query.id) ?? new Map<number, number>();
    ndcg += ndcgAt10(ranking, judgments);
    ap += averagePrecisionAt100(ranking, judgments);
  }
  return { ndcgAt10: ndcg / queries.length, mapAt100: ap / queries.length };
}

/** A RankFn over the in-memory BM25 reference, indexing `textOf(doc)` with `tokenizer`. */
export function inMemoryRankFn(
  docs: readonly CranfieldDoc[],
  tokenizer: Tokenizer,
  textOf: (doc: CranfieldDoc) => string,
): RankFn {
  const rank = indexInMemory(docs.map((doc) => ({ id: doc.id, tokens: tokenizer(textOf(doc)) })));
  return (queryText, depth) => rank(tokenizer(queryText), depth).map((result) => result.id);
}

/** The README reference tokenizer: lowercase `[a-z0-9]+` runs minus a stopword list, no stemming. */
export const asciiTokenizer =
  (stopwords: StopwordList): Tokenizer =>
  (text) =>
    (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((token) => !stopwordLists[stopwords].has(token));

/** A document as the README says to index it through the API: name = title, description = text. */
export const toItem = (doc: CranfieldDoc) => ({ name: doc.title, description: doc.text, tags: [] });

/**
 * A document as the benchmarks create it through the items repository: name = title, description = text. The
 * contract caps a name at 200 characters (16 titles are longer: cut) and requires one (2 titles are empty:
 * "untitled"); the text starts with the full title anyway.
 */
export const cranfieldWrite = (doc: CranfieldDoc) => ({
  name: doc.title.trim().slice(0, 200).trim() || 'untitled',
  description: doc.text.slice(0, 5000),
  tags: [],
  attributes: {},
});

const fields: Record<string, (doc: CranfieldDoc) => string> = {
  text: (doc) => doc.text,
  'itemText(title, text)': (doc) => itemText(toItem(doc)),
};

async function main(): Promise<void> {
  const collection = await loadCranfield();
  const variants: [string, Tokenizer][] = [
    ['ascii [a-z0-9]+, classic45, no stem (reference)', asciiTokenizer('classic45')],
    ['ascii [a-z0-9]+, lucene33, no stem', asciiTokenizer('lucene33')],
  ];
  for (const stopwords of ['none', 'lucene33', 'classic45'] as const)
    for (const stem of [false, true])
      variants.push([
        `unicode, ${stopwords}, ${stem ? 'porter' : 'no stem'}${stopwords === 'classic45' && stem ? ' (default)' : ''}`,
        createTokenizer({ stopwords, stem }),
      ]);

  const format = (x: number) => x.toFixed(3);
  console.log('| indexed text | tokenizer | nDCG@10 | MAP@100 |\n|---|---|---|---|');
  for (const [fieldName, textOf] of Object.entries(fields)) {
    for (const [name, tokenizer] of variants) {
      const scores = await evaluate(inMemoryRankFn(collection.docs, tokenizer, textOf), collection);
      console.log(`| ${fieldName} | ${name} | ${format(scores.ndcgAt10)} | ${format(scores.mapAt100)} |`);
    }
  }

  // With the README's own gains (code −1 → g = 4) the reference tokens give nDCG@10 0.522, not 0.537, and no
  // stopword list tried reaches 0.537 (none, Lucene 33, MySQL 36, Ovid 39, Bow 48, NLTK 153, Glasgow 319: at
  // most 0.525). Giving the code −1 judgments g = 5 (gain 31, not 15) reproduces 0.537 exactly; MAP@100,
  // which ignores grades, matches either way. So the published nDCG@10 was most likely computed that way.
  const asPublished = await loadCranfield(DEFAULT_DIR, { minusOneCode: 0 });
  const reference = inMemoryRankFn(asPublished.docs, asciiTokenizer('classic45'), (doc) => doc.text);
  const scores = await evaluate(reference, asPublished);
  console.log(
    `\nDiagnostic — reference tokens on text, code −1 as g = 5: nDCG@10 ${format(scores.ndcgAt10)}, MAP@100 ${format(scores.mapAt100)}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
