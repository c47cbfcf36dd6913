import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { idf, K1 } from '../format/bm25.ts';
import { REFERENCE_LENGTH } from '../format/keys.ts';
import type { BlockCache } from './block-cache.ts';
import { BlockReader, ReadBudget } from './block-reads.ts';
import { type Hit, rescoreWith, TopKCollector } from './collector.ts';
import { createFirstReads, type FirstReads, type FirstReadsOptions, type FoundTerm } from './first-reads.ts';
import { MaxScoreEvaluator } from './max-score.ts';
import { piecesOf, type TermList } from './pieces.ts';
import { QueryRun } from './query-run.ts';
import { type ItemTerms, Scorer } from './scorer.ts';
import { ShrunkPostings } from './shrunk-postings.ts';

export type { FirstReads, Hit, ItemTerms };

export interface SearchRequest {
  /** Distinct query terms in query order, each with its number of occurrences in the query (Lucene's boost). */
  terms: ReadonlyMap<string, number>;
  topK: number;
  minScore: number;
  /**
   * Each term's word, where a word has alternatives (its completions, its corrections): the alternatives of one word
   * score as one term, the best of them (contract §8.6). A term not in it is a word of its own.
   */
  wordOf?: ReadonlyMap<string, string>;
  /** Keeps the ids that pass the caller's filter (and still exist). */
  accept: (ids: number[]) => Promise<Set<number>>;
  /**
   * Terms the caller expects to have few sealed blocks (the dictionary puts their df low enough, expand.ts): a tail
   * lists its term's directory then, so these tails are read by key, together, and a directory is read
   * after its tail only where the tail does not list it.
   */
  small?: ReadonlySet<string>;
  /**
   * The query terms an answer holds, from the item itself (the retriever has fetched it): given, the search lists an
   * answer's `matchedTerms` from it, and so need not read a block that cannot change an item's score (a weaker
   * alternative of a word the item holds); without it, every block around an answer is read to list them.
   */
  matchedTermsOf?: ((id: number) => string[]) | undefined;
  /** First reads begun before the terms were known (`search.start`): the terms among them are not read again. */
  started?: FirstReads | undefined;
  /**
   * An accepted item's terms and length, from the item itself (the retriever has fetched it): given, each answer is
   * scored from them. A posting may carry a length smaller than its item's (an item that grew keeps the postings
   * whose tf did not change), so a score from the postings is an upper bound, exact for an item
   * whose postings are all as it was last written; the search then asks for more items while a score it lowered
   * lets others reach the k best. Without it, the answers' scores are the postings' own.
   */
  itemOf?: ((id: number) => ItemTerms | undefined) | undefined;
}

export interface SearchOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /**
   * Sealed blocks a query reads at most (the tails and directories are read anyway), so its read units have a
   * ceiling whatever the collection's size; counted as reads by key, a range read counting what it costs (one for
   * each 4 KB, about five compact blocks). A query that would need more returns the best of what it scored: every
   * score exact, the ranking then approximate. Infinity: always exact.
   */
  maxBlocks?: number;
  /** The same ceiling while a filter keeps rejecting candidates. */
  filterMaxBlocks?: number;
  /** Sealed blocks asked for in one round trip (one BatchGetItem reads 100). */
  blocksPerRound?: number;
  /**
   * Wanted blocks of one term at most this many places apart are read by one Query over their range, the blocks
   * between (and likely-needed ones beside them) taken along; 0: every block read by key, only the wanted ones.
   */
  rangeGap?: number;
  /** What a warm container keeps of the first reads (first-reads.ts; by default nothing). */
  firstReads?: FirstReadsOptions;
  /** The sealed blocks a warm container keeps (block-cache.ts; by default none). */
  blocks?: BlockCache | undefined;
}

/**
 * The service's settings (what POST /retrieve and POST /generate run); the benchmark reports against these. A ceiling
 * above what any query of bench:scale needs at 100,000 items (1,453 blocks at most): answers are exact there, and the
 * ceiling only bounds a pathological query's reads (about 1,000 RCU at most). Lower ceilings trade recall for read
 * units: BENCHMARKS.md, Retrieval at scale.
 */
export const SEARCH_DEFAULTS = {
  maxBlocks: 2_048,
  filterMaxBlocks: 4_096,
  blocksPerRound: 32,
  rangeGap: 4,
} as const;

/**
 * A query's term lists: each term found with postings that count (its df less the shrunk set's ghosts), weighted by
 * its count in the query times its idf, and numbered by its word (`wordOf`); `width`: the number of words.
 */
function termListsOf(
  found: readonly (FoundTerm | undefined)[],
  { terms, wordOf }: Pick<SearchRequest, 'terms' | 'wordOf'>,
  docs: number,
  ghosts: ReadonlyMap<string, number>,
): { lists: TermList[]; width: number } {
  const lists: TermList[] = [];
  for (const list of found) {
    if (!list) continue;
    // The shrunk set's ghosts of the term (postings of items that no longer hold it) are not counted.
    const df = list.df - (ghosts.get(list.term) ?? 0);
    if (df <= 0) continue;
    // A df above N only exists for a moment (a rebuild adds an item's new postings before it removes the old ones
    // and commits the counts); clamped, a term's weight stays positive meanwhile.
    const weight = (terms.get(list.term) ?? 1) * idf(docs, Math.min(df, docs));
    lists.push({
      term: list.term,
      weight,
      tail: list.tail,
      entries: list.entries,
      blocks: [],
      spent: 0,
      word: 0,
    });
  }
  const words = new Map<string, number>();
  for (const list of lists) {
    const word = wordOf?.get(list.term) ?? list.term;
    if (!words.has(word)) words.set(word, words.size);
    list.word = words.get(word) ?? 0;
  }
  return { lists, width: words.size };
}

/**
 * BM25 top-k over postings stored in item-id order with a maximum per block, never over the collection: block-max
 * evaluation, as Lucene's and tantivy's block-max WAND and MaxScore do it, by id ranges. One round trip reads the
 * corpus counts, every query term's tail (its df and newest postings) and its directory (each sealed block's range
 * and maximum): first-reads.ts. The id line is split into pieces where any term's block ends, so each piece lies in one
 * block of each term, and a piece's bound is the sum of its words' best blocks' bounds: pieces.ts. Pieces are scored
 * in descending bound (max-score.ts), reading the blocks they need a round at a time (query-run.ts, block-reads.ts);
 * every item in a piece is scored from the postings (tf and dl: exact, or an upper bound for an item that grew since,
 * which the answer's item then scores exactly: `itemOf`), and reading stops when no piece left can reach the k-th
 * score (collector.ts). The bound is safe: a maximum impact was computed at REFERENCE_LENGTH, and a saturation at the
 * current average length is at most impact × max(1, avgdl / REFERENCE_LENGTH).
 */
export function createSearch({
  client,
  tableName,
  maxBlocks = SEARCH_DEFAULTS.maxBlocks,
  filterMaxBlocks = SEARCH_DEFAULTS.filterMaxBlocks,
  blocksPerRound = SEARCH_DEFAULTS.blocksPerRound,
  rangeGap = SEARCH_DEFAULTS.rangeGap,
  firstReads: kept,
  blocks,
}: SearchOptions) {
  const firstReads = createFirstReads(client, tableName, kept);

  /**
   * A query's first reads, and what it takes to finish it: `stamp` names what those reads found (the index version,
   * each term's home version), so an answer kept under one stamp is the answer to any query of the same terms that
   * finds the same (answers.ts).
   */
  async function prepare(request: SearchRequest): Promise<PreparedSearch> {
    const { stats, found } = await firstReads.readTerms(
      [...request.terms.keys()],
      request.small,
      request.started,
    );
    return { stamp: stampOf(stats.commits, found), run: () => rank(request, stats, found) };
  }

  async function rank(request: SearchRequest, stats: Stats, found: readonly (FoundTerm | undefined)[]) {
    const { topK, minScore, accept, matchedTermsOf, itemOf } = request;
    const docs = stats.docs;
    if (docs <= 0) return [];
    blocks?.observe(stats.sealed);
    const avgdl = stats.len / docs || 1;
    const stretch = Math.max(1, avgdl / REFERENCE_LENGTH);
    const { lists, width } = termListsOf(found, request, docs, stats.shrunk.ghosts);
    if (lists.length === 0) return [];
    const scorer = new Scorer(lists, width, avgdl);
    const boundOf = (weight: number, max: number) => weight * (K1 + 1) * Math.min(1, (max / 1e6) * stretch);
    const shrunk = new ShrunkPostings(stats.shrunk.entries);
    for (const list of lists) list.tail.postings = shrunk.atLengths(list.tail.postings, list.term);
    const pieces = piecesOf(lists, (weight, max, after, to) =>
      boundOf(weight, shrunk.raised(after, to, max)),
    );
    const collector = new TopKCollector(topK, minScore, !matchedTermsOf);
    const run = new QueryRun({
      pieces,
      evaluator: new MaxScoreEvaluator(scorer, collector, matchedTermsOf !== undefined),
      collector,
      reader: new BlockReader({
        client,
        tableName,
        rangeGap,
        lists,
        atLengths: (columns, term) => shrunk.atLengths(columns, term),
        cache: blocks,
      }),
      budget: new ReadBudget(maxBlocks, filterMaxBlocks),
      request: {
        accept,
        rescore: rescoreWith(itemOf, (item) => scorer.itemScore(item)),
        matchedTermsOf,
        blocksPerRound,
      },
    });
    return run.run();
  }

  const search = async (request: SearchRequest): Promise<Hit[]> => (await prepare(request)).run();
  return Object.assign(search, { start: firstReads.start, prepare });
}

/** The corpus counts and the shrunk set, as a query's first reads found them. */
type Stats = Awaited<FirstReads['stats']>;

/** A search whose first reads are made: `stamp` names what they found; `run` ranks from them. */
export interface PreparedSearch {
  stamp: string;
  run: () => Promise<Hit[]>;
}

/**
 * What a query's first reads found, in one string: the index version (Σ commits) and, per term in query order, its
 * home's `v` (`-`: no postings). Every change to what a query reads moves one of them: a tail's moves its home's `v`;
 * a sealed block, a directory page, the counts and the shrunk set change only in a pass, whose commit moves the
 * index version (docs/index-format.md, the writer's protocol).
 */
const stampOf = (commits: number, found: readonly (FoundTerm | undefined)[]) =>
  `${commits}:${found.map((term) => term?.v ?? '-').join(',')}`;
