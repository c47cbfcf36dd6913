import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import {
  BLOCK_CAPACITY,
  decodeColumns,
  decodeDirectory,
  type PostingColumns,
  raisedImpact,
} from '../format/blocks.ts';
import { B, idf, K1 } from '../format/bm25.ts';
import {
  countParts,
  directoryEntries,
  directoryQuery,
  formInHome,
  homeOf,
  REFERENCE_LENGTH,
  type Shrunk,
  type ShrunkSet,
  sealedSk,
  shrunkReader,
  statsQuery,
  sumCounts,
  TAIL_SK,
  tailKey,
  termOfPk,
  termPk,
} from '../format/keys.ts';
import { isExactForm } from '../text/tokenizer.ts';

export interface Hit {
  id: number;
  score: number;
  matchedTerms: string[];
}

export interface SearchRequest {
  /** Distinct query terms in query order, each with its number of occurrences in the query (Lucene's boost). */
  terms: ReadonlyMap<string, number>;
  topK: number;
  minScore: number;
  /**
   * Each term's word, where a word has alternatives (its completions, its corrections): the alternatives of one word
   * score as one term, the best of them (contract §8.6). A term not in it is a word of its own.
   */
  groups?: ReadonlyMap<string, string>;
  /** Keeps the ids that pass the caller's filter (and still exist). */
  accept: (ids: number[]) => Promise<Set<number>>;
  /**
   * Terms the caller expects to have few sealed blocks (the dictionary puts their df low enough, expand.ts): a tail
   * lists its term's directory then (keys.ts), so these tails are read by key, together, and a directory is read
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
   * whose tf did not change: indexer.ts `changes`), so a score from the postings is an upper bound, exact for an item
   * whose postings are all as it was last written; the search then asks for more items while a score it lowered
   * lets others reach the k best. Without it, the answers' scores are the postings' own.
   */
  itemOf?: ((id: number) => ItemTerms | undefined) | undefined;
}

/** What an item holds, as the index scores it: each term's frequency, and its length. */
export interface ItemTerms {
  tfs: ReadonlyMap<string, number>;
  dl: number;
}

/** What the query reads first: the corpus counts, and per term its tail and (unless listed there) directory. */
export interface FirstReads {
  /** The corpus counts, and the shrunk set (keys.ts): one Query of their partition. */
  stats: Promise<ReturnType<typeof sumCounts> & { shrunk: ShrunkSet }>;
  terms: Map<
    string,
    Promise<{ tail: Record<string, unknown> | undefined; entries?: [end: number, max: number][] }>
  >;
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

/** A block of one term as the query sees it: the ids (after, to] it covers, its bound, its postings once read. */
interface Block {
  term: number;
  /** Its term's word (contract §8.6): the blocks of one word's alternatives add their best, not their sum. */
  group: number;
  after: number;
  to: number;
  /** The most a posting of it adds to a score. */
  bound: number;
  sk: string;
  /** Its place among its term's sealed blocks (the tail: after the last). */
  index: number;
  postings: PostingColumns | undefined;
}
interface Interval {
  after: number;
  to: number;
  /** One block per term that has postings around it. */
  blocks: Block[];
  bound: number;
  /** The items of its blocks read so far (`tableOf`). */
  table?: PieceTable;
}
/** A piece's items, a row each: per word (by number), its best alternative's score and first term. */
interface PieceTable {
  /** The items, one a row, in the order they were first met (no step depends on it: ties break by id). */
  ids: number[];
  /** Each item's row (an array beside it: looping over an array is the hot path of `evaluate`). */
  rows: Map<number, number>;
  /** rows × words: the word's best score in the item (0: none). */
  best: number[];
  /** rows × words (where a word has alternatives): the number of the word's first term the item holds (-1: none). */
  first: number[];
  /**
   * The blocks added, each with whether its items were all given rows: an essential block's are; another's only
   * update the items the table holds, since an item in none of the essential blocks cannot reach the threshold.
   */
  added: Map<Block, boolean>;
  /** How many blocks were added for known items only. */
  partial: number;
}
interface TermList {
  term: string;
  weight: number;
  tail: { postings: PostingColumns; lo: number; m: number };
  /** Sealed blocks' ends and maxima, in id order. */
  entries: [end: number, max: number][];
  /** Its blocks in id order (sealed, then the tail), once cut. */
  blocks: Block[];
  /** Read units its blocks' reads have cost so far (estimated). */
  spent: number;
  /** Its word's number (terms of one word share it). */
  group: number;
}

const byScore = (a: Hit, b: Hit) => b.score - a.score || a.id - b.id;

/** The best `n` hits in order (byScore), without sorting them all: a query of common words scores many thousands. */
function bestOf(hits: readonly Hit[], n: number): Hit[] {
  const top: Hit[] = [];
  for (const hit of hits) {
    if (top.length >= n && byScore(hit, top[n - 1] as Hit) >= 0) continue;
    let low = 0;
    let high = top.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (byScore(top[middle] as Hit, hit) <= 0) low = middle + 1;
      else high = middle;
    }
    top.splice(low, 0, hit);
    if (top.length > n) top.pop();
  }
  return top;
}

/**
 * BM25 top-k over postings stored in item-id order with a maximum per block (keys.ts), never over the collection:
 * block-max evaluation, as Lucene's and tantivy's block-max WAND and MaxScore do it, by id ranges. One round trip
 * reads the corpus counts, every query term's tail (its df and newest postings) and its directory (each sealed
 * block's range and maximum). The id line is cut where any term's block ends, so each piece lies in one block of
 * each term, and a piece's bound is the sum of its blocks' bounds. Pieces are scored in descending bound, reading the
 * blocks they need a round at a time; every item in a piece is scored from the postings (tf and dl: exact, or an upper
 * bound for an item that grew since, which the answer's item then scores exactly: `itemOf`), and reading stops when
 * no piece left can reach the k-th score. A term's blocks that lie close together are read by one
 * Query over their range (DynamoDB charges a Query by its bytes, a read by key per item: a compact block is a fifth
 * of what its read by key costs), with the blocks beside them that may still be needed; once a term's reads have
 * cost half of what reading all its likely blocks by range would, those are read at once. The bound is safe: a maximum impact was computed at
 * REFERENCE_LENGTH, and a saturation at the current average length is at most impact × max(1, avgdl / REFERENCE_LENGTH).
 */
export function createSearch({
  client,
  tableName,
  maxBlocks = SEARCH_DEFAULTS.maxBlocks,
  filterMaxBlocks = SEARCH_DEFAULTS.filterMaxBlocks,
  blocksPerRound = SEARCH_DEFAULTS.blocksPerRound,
  rangeGap = SEARCH_DEFAULTS.rangeGap,
}: SearchOptions) {
  /** The shrunk set as each query reads it, an entry parsed once while it stays the same (keys.ts). */
  const readShrunk = shrunkReader();
  /** Blocks of one term in id order, cut into runs wherever two are more than rangeGap places apart. */
  function runsOf(blocks: readonly Block[]): Block[][] {
    const runs: Block[][] = [];
    for (const block of blocks) {
      const run = runs.at(-1);
      const last = run?.at(-1);
      if (run && last && block.index - last.index <= rangeGap) run.push(block);
      else runs.push([block]);
    }
    return runs;
  }

  /** A term's directory: every page's entries. */
  async function readDirectory(term: string): Promise<[number, number][]> {
    return directoryEntries(await queryAll(client, directoryQuery(tableName, termPk(term))));
  }

  /**
   * A term's tail and directory pages in one Query (the tail's key, `K#~`, sorts right before the pages' `X#…`, and
   * nothing of the term's lies between): DynamoDB charges a Query by the bytes it returns, so the two cost one half
   * unit where a read of each cost one each.
   */
  async function readTailAndDirectory(term: string) {
    const rows = await queryAll(client, {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk >= :tail',
      ExpressionAttributeValues: { ':pk': termPk(term), ':tail': TAIL_SK },
    });
    return { tail: rows.find((row) => row.sk === TAIL_SK), entries: directoryEntries(rows) };
  }

  /**
   * Starts the first reads: the counts, and the tail and directory of each of `terms` by one Query. The retriever
   * starts them for the words as written while the dictionary finds their alternatives (`SearchRequest.started`).
   */
  function start(terms: Iterable<string>): FirstReads {
    return {
      stats: observed(
        queryAll(client, statsQuery(tableName)).then((rows) => ({
          ...sumCounts(countParts(rows)),
          shrunk: readShrunk(rows),
        })),
      ),
      terms: new Map([...new Set(terms)].map((term) => [term, observed(readTailAndDirectory(term))])),
    };
  }

  /**
   * Corpus counts, tails and directories, read at once (what `started` has not begun): a term expected to have few
   * sealed blocks (`small`) its tail alone (with the others of its kind, by key), any other its tail and directory by
   * one Query. A tail that lists its directory is read with it (one record); a directory read before a seal the tail
   * shows, or not read beside a tail that does not list it, is read after it.
   */
  async function readTerms(
    terms: readonly string[],
    small: ReadonlySet<string> = new Set(),
    started: FirstReads = start([]),
  ) {
    const rest = terms.filter((term) => !started.terms.has(term));
    // An exact form's tail is in its home, its stem's tail record (keys.ts `homeOf`), which the search reads anyway
    // where it reads the stem; other homes are read by key with the small tails. The form's own key holds its
    // directory pages.
    const read = new Set([...started.terms.keys(), ...rest]);
    const homes = [...new Set(terms.filter(isExactForm).map(homeOf))].filter((home) => !read.has(home));
    const byKey = batchGet(client, tableName, [
      ...rest.filter((term) => small.has(term)).map(tailKey),
      ...homes.map(tailKey),
    ]).then((rows) => new Map(rows.map((row) => [termOfPk(row.pk) ?? '', row])));
    const reads = new Map(started.terms);
    for (const term of rest)
      reads.set(
        term,
        small.has(term) ? byKey.then((tails) => ({ tail: tails.get(term) })) : readTailAndDirectory(term),
      );
    /** A term's tail: a stem's own, a form's from its home. */
    const tailOf = async (term: string, own: Record<string, unknown> | undefined) => {
      if (!isExactForm(term)) return own;
      const home = homeOf(term);
      const row = read.has(home) ? (await reads.get(home))?.tail : (await byKey).get(home);
      return formInHome(row, term);
    };
    const [stats, found] = await Promise.all([
      started.stats,
      Promise.all(
        terms.map(async (term) => {
          const { tail: own, entries: read } = (await reads.get(term)) ?? { tail: undefined };
          const tail = await tailOf(term, own);
          if (!tail || typeof tail.df !== 'number' || tail.df <= 0) return undefined;
          const lo = Number(tail.lo ?? 0);
          const listed = lo > 0 && tail.d instanceof Uint8Array ? decodeDirectory(tail.d) : undefined;
          let entries = listed ?? read ?? [];
          // The tail was read after a seal the directory missed (or alone): its blocks are below lo and unknown.
          if (!listed && lo > 0 && (entries.at(-1)?.[0] ?? 0) < lo) entries = await readDirectory(term);
          return {
            term,
            df: tail.df,
            tail: { postings: decodeColumns(tail.p), lo, m: Number(tail.m ?? 1e6) },
            entries: entries.filter(([end]) => end <= lo),
          };
        }),
      ),
    ]);
    return { stats, found };
  }

  return Object.assign(search, { start });

  async function search({
    terms,
    groups,
    topK,
    minScore,
    accept,
    small,
    started,
    matchedTermsOf,
    itemOf,
  }: SearchRequest): Promise<Hit[]> {
    const { stats, found } = await readTerms([...terms.keys()], small, started);
    const docs = stats.docs;
    if (docs <= 0) return [];
    const avgdl = stats.len / docs || 1;
    const stretch = Math.max(1, avgdl / REFERENCE_LENGTH);
    // Items whose postings carry more than they hold (the shrunk set, keys.ts): a longer length, or tfs above theirs.
    const { entries: shrunk, ghosts } = stats.shrunk;
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
        group: 0,
      });
    }
    if (lists.length === 0) return [];
    const words = new Map<string, number>();
    for (const list of lists) {
      const word = groups?.get(list.term) ?? list.term;
      if (!words.has(word)) words.set(word, words.size);
      list.group = words.get(word) ?? 0;
    }
    /** Whether some word has several alternatives (its completions, its corrections). */
    const alternatives = words.size < lists.length;
    const boundOf = (weight: number, max: number) => weight * (K1 + 1) * Math.min(1, (max / 1e6) * stretch);
    // The shrunk set's items' postings are scored at the items' lengths and tfs (their cuts), a ghost left out; a
    // block whose range holds an item shorter than its postings' norm bounds what its posting reaches there
    // (blocks.ts `raisedImpact`): a lower tf only lowers a score.
    const shrunkById = new Map(shrunk.map((entry) => [entry.id, entry]));
    const atLengths = (columns: PostingColumns, term: string): PostingColumns => {
      if (shrunkById.size === 0) return columns;
      let ghost = false;
      for (let i = 0; i < columns.length; i++) {
        const entry = shrunkById.get(columns.ids[i] as number);
        if (!entry) continue;
        columns.dls[i] = entry.dl;
        const tf = Object.hasOwn(entry.cut, term) ? entry.cut[term] : undefined;
        if (tf !== undefined) columns.tfs[i] = tf;
        if (tf === 0) ghost = true;
      }
      return ghost ? withoutGhosts(columns) : columns;
    };
    const raised = (after: number, to: number, max: number): number => {
      let bound = max;
      for (let i = firstShrunkAfter(shrunk, after); i < shrunk.length; i++) {
        const entry = shrunk[i] as Shrunk;
        if (entry.id > to) break;
        bound = Math.max(bound, raisedImpact(max, entry.norm, entry.dl));
      }
      return bound;
    };
    for (const list of lists) list.tail.postings = atLengths(list.tail.postings, list.term);
    const intervals = cut(lists, (weight, max, after, to) => boundOf(weight, raised(after, to, max)));

    const scored = new Map<number, Hit>();
    const rejected = new Set<number>();
    const accepted = new Set<number>();
    /** Per piece: settled (every item in it scored or shown unable to reach the k-th score), and the best bound of
     * the items it passed over, so a filter that lowers the k-th score opens it again. */
    const settled = new Map<Interval, number>();
    let asking = topK;
    let budget = maxBlocks;
    let read = 0;
    /** The best k scores of items not rejected, in descending order (rebuilt when the filter rejects). */
    let best: number[] = [];
    const keep = (score: number) => {
      if (best.length >= topK && score <= (best.at(-1) ?? 0)) return;
      const at = best.findIndex((other) => other < score);
      best.splice(at === -1 ? best.length : at, 0, score);
      if (best.length > topK) best.pop();
    };
    const kth = () => (best.length >= topK ? (best.at(-1) ?? 0) : Number.NEGATIVE_INFINITY);
    const reaches = (bound: number, threshold: number) => bound >= threshold && bound > minScore;
    // Pieces whose blocks are all tails (read with the first round trip) are scored first, at no cost: their items
    // give the k-th score a start, so the first blocks read are already only the essential ones.
    for (const interval of intervals)
      if (interval.blocks.every((block) => block.postings)) evaluate(interval, Number.NEGATIVE_INFINITY);
    while (true) {
      // A round: the pieces that can still reach the k-th score, in descending bound, each asking for the blocks it
      // needs (see `evaluate`), until the round's blocks are asked for.
      const wanted = new Map<string, Block>();
      let starved = false;
      for (const interval of intervals) {
        // The k-th score rises as pieces are scored, within the round too.
        const threshold = Math.max(kth(), minScore);
        if (!reaches(interval.bound, threshold)) break;
        const passedOver = settled.get(interval);
        if (passedOver !== undefined && !reaches(passedOver, threshold)) continue;
        const needs = evaluate(interval, threshold).filter((block) => !wanted.has(key(block)));
        if (needs.length === 0) continue;
        // Over the budget: this piece is left, and cheaper ones (their blocks read already) still scored.
        if (read + wanted.size + needs.length > budget) {
          starved = true;
          continue;
        }
        for (const block of needs) wanted.set(key(block), block);
        if (wanted.size >= blocksPerRound) break;
      }
      if (wanted.size > 0) {
        read += await fetchBlocks(
          [...wanted.values()],
          likelyNeeded(Math.max(kth(), minScore)),
          budget - read,
        );
        continue;
      }
      // Settled (or out of budget): the best k, if the filter keeps them all, are the answer. The filter is asked
      // about the best `asking` not yet asked about, a number that doubles while it rejects, so a filter that
      // rejects nearly everything costs a few calls, not one per k candidates.
      // The answer comes from the best `asking + topK`: the filter may reject up to `asking` of them.
      const ranked = bestOf(
        [...scored.values()].filter((hit) => !rejected.has(hit.id)),
        asking + topK,
      );
      const unasked = ranked.slice(0, asking).filter((hit) => !accepted.has(hit.id));
      let rejecting = false;
      // Whether an accepted item scored otherwise than its postings did (they bound it: see `itemOf`).
      let rescored = false;
      if (unasked.length > 0) {
        const kept = await accept(unasked.map((hit) => hit.id));
        for (const hit of unasked) {
          if (!kept.has(hit.id)) {
            rejected.add(hit.id);
            rejecting = true;
            continue;
          }
          accepted.add(hit.id);
          const held = itemOf?.(hit.id);
          const score = held ? itemScore(held) : hit.score;
          if (score === hit.score) continue;
          rescored = true;
          // Below the least score asked for (the item no longer holds what its postings say): it is no answer.
          if (score > minScore) scored.set(hit.id, { ...hit, score });
          else rejected.add(hit.id);
        }
        best = [];
        for (const hit of scored.values()) if (!rejected.has(hit.id)) keep(hit.score);
      }
      // The best k of those not rejected (ranked again where a score changed).
      const answer = () =>
        bestOf(
          (rescored ? [...scored.values()] : ranked).filter((hit) => !rejected.has(hit.id)),
          topK,
        ).map((hit) => (matchedTermsOf ? { ...hit, matchedTerms: matchedTermsOf(hit.id) } : hit));
      if (!rejecting && !rescored) return answer();
      // A score made lower lowers the k-th score, as a rejection does: pieces passed over may reach it now, and the
      // best k may hold items not yet asked about.
      if (!rejecting) continue;
      // A filter that rejects candidates lowers the k-th score: more pieces may qualify, under a larger budget.
      if (starved && budget >= filterMaxBlocks) return answer();
      budget = Math.max(budget, filterMaxBlocks);
      asking *= 2;
    }

    /**
     * A piece's essential blocks, MaxScore's split taken down to a word's alternatives: an item in none of them holds
     * each word, if at all, through alternatives no stronger than the word's strongest non-essential one (its cap), so
     * its score is at most the caps' sum (`rest`). The strongest alternative of the word of greatest cap is made
     * essential until that sum is below the threshold: a word of one term is taken whole, as MaxScore takes it, and a
     * prefix's weak completions stay unread where no item can reach the threshold through them alone.
     */
    function split(interval: Interval, threshold: number): { essential: Block[]; rest: number } {
      const byWord = [...wordsOf(interval.blocks).values()].map((word) => ({
        blocks: word.blocks.sort((x, y) => y.bound - x.bound),
        taken: 0,
      }));
      const cap = (word: (typeof byWord)[number]) => word.blocks[word.taken]?.bound ?? 0;
      // Summed afresh each time (a few words): no rounding drift below the true sum.
      const caps = () => byWord.reduce((sum, word) => sum + cap(word), 0);
      let rest = caps();
      const essential: Block[] = [];
      while (reaches(rest, threshold)) {
        let strongest = byWord[0];
        for (const word of byWord)
          if (strongest === undefined || cap(word) > cap(strongest)) strongest = word;
        const block = strongest?.blocks[strongest.taken];
        if (!strongest || !block) break;
        essential.push(block);
        strongest.taken++;
        rest = caps();
      }
      return { essential, rest };
    }

    /**
     * The unread blocks of every piece that can still reach the threshold: what the query may read next unless the
     * k-th score rises first. A range read takes them along where they lie beside the blocks it reads.
     */
    function likelyNeeded(threshold: number): Set<Block> {
      const likely = new Set<Block>();
      for (const interval of intervals) {
        if (!reaches(interval.bound, threshold)) break;
        const passedOver = settled.get(interval);
        if (passedOver !== undefined && !reaches(passedOver, threshold)) continue;
        for (const block of interval.blocks) if (!block.postings) likely.add(block);
      }
      return likely;
    }

    /**
     * Block-max MaxScore within one piece. Its blocks of greatest bound are *essential*: the fewest whose others'
     * bounds add up to less than the threshold, so an item in none of them cannot reach it. Once those are read,
     * each item they hold is a candidate: known in the blocks read, bounded by the others'. A candidate that can
     * still reach the threshold needs the piece's other blocks; one that cannot is passed over (its bound kept); one
     * with every block read is scored exactly. Returns the blocks the piece needs read next (none: settled).
     */
    function evaluate(interval: Interval, threshold: number): Block[] {
      const { essential, rest } = split(interval, threshold);
      const unreadEssential = essential.filter((block) => !block.postings);
      if (unreadEssential.length > 0) return unreadEssential;
      const unread = interval.blocks.filter((block) => !block.postings);
      if (unread.length === 0 && interval.blocks.length === 1) return scoreAlone(interval, threshold);
      const table = tableOf(interval, essential);
      const width = words.size;
      // Per word, the most its unread blocks could add.
      const unreadBounds = new Float64Array(width);
      for (const [group, word] of wordsOf(unread)) unreadBounds[group] = word.bound;
      // An item of a piece read whole is in its table unless it is in none of the essential blocks, so bounded by
      // `rest`: what the piece passes over is that and what it scored below the threshold.
      let passedOver = unread.length === 0 && table.partial === 0 ? Number.NEGATIVE_INFINITY : rest;
      let needed = false;
      /** With `matchedTermsOf`: the unread blocks some candidate needs. */
      const wanting = new Set<Block>();
      for (let row = 0; row < table.ids.length; row++) {
        const id = table.ids[row] as number;
        if (scored.has(id) || rejected.has(id)) continue;
        const at = row * width;
        if (unread.length === 0) {
          const score = rowScore(table, row);
          if (reaches(score, threshold)) record(id, score, () => matchedTerms(interval, id));
          else passedOver = Math.max(passedOver, score);
          continue;
        }
        let bound = 0;
        for (let group = 0; group < width; group++)
          bound += Math.max(table.best[at + group] as number, unreadBounds[group] as number);
        if (!reaches(bound, threshold)) passedOver = Math.max(passedOver, bound);
        else if (!matchedTermsOf) needed = true;
        else {
          // Only the blocks that can change its score are needed; with none, its score is known.
          let known = true;
          for (const block of unread) {
            const word = Math.max(
              table.best[at + block.group] as number,
              unreadBounds[block.group] as number,
            );
            if (!changes(table, row, block, bound - word, threshold)) continue;
            wanting.add(block);
            known = false;
          }
          if (!known) continue;
          const score = rowScore(table, row);
          if (reaches(score, threshold)) record(id, score, () => matchedTerms(interval, id));
          else passedOver = Math.max(passedOver, score);
        }
      }
      if (needed) return unread;
      if (wanting.size > 0) return [...wanting];
      settled.set(interval, passedOver);
      return [];
    }

    /**
     * Whether an unread block can change the score of the item in `row`, whose other words' bound (with every unread
     * block) is `others`: it can raise the best of its word's alternatives past what the item holds and so reach the
     * threshold, or it is of a term before the first the item holds of its word and after another word's first, so it
     * may move the word ahead of that one in the sum (rowScore adds the words in the order of their first terms: the
     * in-memory ranking's order, to the last bit).
     */
    function changes(
      table: PieceTable,
      row: number,
      block: Block,
      others: number,
      threshold: number,
    ): boolean {
      const at = row * words.size;
      if (block.bound > (table.best[at + block.group] as number) && reaches(others + block.bound, threshold))
        return true;
      if (!alternatives || block.bound <= 0) return false;
      const first = table.first[at + block.group] as number;
      if (first < 0 || block.term > first) return false;
      for (let group = 0; group < words.size; group++) {
        const other = table.first[at + group] as number;
        if (group !== block.group && other >= 0 && block.term < other && other < first) return true;
      }
      return false;
    }

    /**
     * An item scored exactly is kept if it can still be among the best k (a filter that rejects some lowers the k-th
     * score and opens the piece again, `settled`): a query of common words scores many thousands of items.
     */
    function record(id: number, score: number, matched: () => string[]) {
      // Given matchedTermsOf, the answer's are listed from its item (`answer`).
      scored.set(id, { id, score, matchedTerms: matchedTermsOf ? [] : matched() });
      keep(score);
    }

    /** A piece that lies in one block of one term, read: each item scored from its posting alone. */
    function scoreAlone(interval: Interval, threshold: number): Block[] {
      const [block] = interval.blocks as [Block];
      const list = lists[block.term] as TermList;
      const { ids, tfs, dls, length } = block.postings ?? EMPTY;
      let passedOver = Number.NEGATIVE_INFINITY;
      for (let i = firstAfter(ids, length, interval.after); i < length; i++) {
        const id = ids[i] as number;
        if (id > interval.to) break;
        if (scored.has(id) || rejected.has(id)) continue;
        const score = scoreOf(tfs[i] as number, dls[i] as number, list.weight);
        if (reaches(score, threshold)) record(id, score, () => [list.term]);
        else passedOver = Math.max(passedOver, score);
      }
      settled.set(interval, passedOver);
      return [];
    }

    /**
     * The items of a piece's read blocks, with each word's best score among its alternatives, kept with the piece
     * and added to as its blocks are read (a piece waiting for blocks is looked at every round): one row an item, found
     * by id, in arrays a row is pushed onto, so a block read is added once, by its own postings, and nothing else is
     * copied (a prefix's completions make many blocks a piece).
     */
    function tableOf(interval: Interval, essential: readonly Block[]): PieceTable {
      let table = interval.table;
      // A block essential now that was added for known items only (the threshold fell, a filter rejected some): the
      // table is made again, since a row it adds would miss the blocks added before it.
      if (!table || (table.partial > 0 && essential.some((block) => table?.added.get(block) !== true)))
        table = interval.table = {
          ids: [],
          rows: new Map(),
          best: [],
          first: [],
          added: new Map(),
          partial: 0,
        };
      for (const block of essential) if (!table.added.has(block)) addBlock(table, block, interval, true);
      for (const block of interval.blocks)
        if (block.postings && !table.added.has(block)) addBlock(table, block, interval, false);
      return table;
    }

    /** Adds a read block's postings in the piece: with `rows`, an item not yet in the table gets one. */
    function addBlock(table: PieceTable, block: Block, interval: Interval, rows: boolean) {
      const width = words.size;
      const { ids, tfs, dls, length } = block.postings ?? EMPTY;
      const list = lists[block.term] as TermList;
      const start = firstAfter(ids, length, interval.after);
      const end = firstAfter(ids, length, interval.to);
      for (let j = start; j < end; j++) {
        const id = ids[j] as number;
        let row = table.rows.get(id);
        if (row === undefined) {
          if (!rows) continue;
          row = table.ids.length;
          table.ids.push(id);
          table.rows.set(id, row);
          for (let group = 0; group < width; group++) {
            table.best.push(0);
            if (alternatives) table.first.push(-1);
          }
        }
        const cell = row * width + list.group;
        table.best[cell] = Math.max(
          table.best[cell] as number,
          scoreOf(tfs[j] as number, dls[j] as number, list.weight),
        );
        // The word's first alternative the item holds, in term order: its score adds the words up in that order.
        // Which came first matters only where a word has several (rowScore).
        if (alternatives && (table.first[cell] === -1 || block.term < (table.first[cell] as number)))
          table.first[cell] = block.term;
      }
      table.added.set(block, rows);
      if (!rows) table.partial++;
    }

    /**
     * An item's score from what it holds (`itemOf`): each word's best alternative, added in the order of the words'
     * first terms the item holds, with rowScore's arithmetic (so an item whose postings are as it holds them scores
     * the very same number).
     */
    function itemScore({ tfs, dl }: ItemTerms): number {
      const best = new Float64Array(words.size);
      const held: number[] = [];
      for (const list of lists) {
        const tf = tfs.get(list.term);
        if (tf === undefined) continue;
        if (best[list.group] === 0) held.push(list.group);
        best[list.group] = Math.max(best[list.group] as number, scoreOf(tf, dl, list.weight));
      }
      let score = 0;
      for (const group of held) score += best[group] as number;
      return score;
    }

    /** termScore's arithmetic, step for step (so every score equals the in-memory ranking's to the last bit). */
    function scoreOf(tf: number, dl: number, weight: number): number {
      return weight * (K1 + 1) * (tf / (tf + K1 * (1 - B + B * (dl / avgdl))));
    }

    /**
     * An item's exact score: each word's best, added in the order of the words' first terms the item holds (the
     * order the in-memory ranking adds them in, so equal scores are equal to the last bit).
     */
    function rowScore(table: PieceTable, row: number): number {
      const width = words.size;
      const at = row * width;
      let score = 0;
      // Words of one term each: their order is the terms' order, the words' own.
      if (!alternatives) {
        for (let group = 0; group < width; group++) score += table.best[at + group] as number;
        return score;
      }
      const held: number[] = [];
      for (let group = 0; group < width; group++)
        if ((table.first[at + group] as number) >= 0) held.push(group);
      if (held.length > 1)
        held.sort((x, y) => (table.first[at + x] as number) - (table.first[at + y] as number));
      for (const group of held) score += table.best[at + group] as number;
      return score;
    }

    /** The terms of a piece's blocks that hold `id`, in term order. */
    function matchedTerms(interval: Interval, id: number): string[] {
      const matched: string[] = [];
      for (const block of interval.blocks) {
        const { ids, length } = block.postings ?? EMPTY;
        const i = firstAfter(ids, length, id - 1);
        if (i < length && ids[i] === id) matched.push((lists[block.term] as TermList).term);
      }
      return matched;
    }

    /**
     * Reads the blocks (eventually consistent, as every query read); a block gone since the directory is empty.
     * A term's wanted blocks that lie close together are read by one Query over their range, the blocks between
     * included (a Query costs its bytes, 4 KB a half unit, where each item read by key costs a half unit: about five
     * compact blocks for the price of one); a block alone is read by key with the others.
     */
    async function fetchBlocks(blocks: Block[], likely: Set<Block>, budget: number): Promise<number> {
      const wanted = new Set(blocks);
      let spare = budget - blocks.length;
      // Blocks taken along: at most a few per wanted block (what fills the 4 KB its own read is charged for anyway).
      let along = Math.min(spare, ALONG_PER_BLOCK * blocks.length);
      const single: Block[] = [];
      const ranges: Block[][] = [];
      for (const list of lists) {
        const asked = list.blocks.filter((block) => wanted.has(block));
        if (asked.length === 0) continue;
        const near = list.blocks.filter((block) => wanted.has(block) || (rangeGap > 0 && likely.has(block)));
        // Ski rental: once this term's reads have cost half of what reading all its likely blocks by range costs,
        // they are read at once (a query of common words reads most of their lists; one of a common word, little).
        const all = runsOf(near);
        const buy = all.reduce((sum, run) => sum + runCost(run), 0);
        let runs: Block[][];
        if (
          (list.spent + asked.length * KEY_COST) * BUY_FACTOR >= buy &&
          buy / KEY_COST - asked.length <= spare
        ) {
          runs = all;
          spare -= buy / KEY_COST - asked.length;
        } else {
          runs = [];
          for (const run of all) {
            const count = run.filter((block) => wanted.has(block)).length;
            const extra = runCost(run) / KEY_COST - count;
            if (count > 0 && run.length > 1 && along >= run.length - count && extra <= spare) {
              along -= run.length - count;
              spare -= extra;
              runs.push(run);
            } else runs.push(...runsOf(run.filter((block) => wanted.has(block))));
          }
        }
        for (const run of runs) {
          list.spent += runCost(run);
          if (run.length > 1) ranges.push(run);
          else single.push(...run);
        }
      }
      await Promise.all([
        batchGet(
          client,
          tableName,
          single.map((block) => ({ pk: termPk(lists[block.term]?.term ?? ''), sk: block.sk })),
          { concurrency: 4 },
        ).then((rows) => {
          const byKey = new Map(rows.map((row) => [`${termOfPk(row.pk)}\u0000${row.sk}`, row]));
          for (const block of single) {
            const row = byKey.get(`${lists[block.term]?.term}\u0000${block.sk}`);
            block.postings = row ? atLengths(decodeColumns(row.p), lists[block.term]?.term ?? '') : EMPTY;
          }
        }),
        ...ranges.map(async (run) => {
          const list = lists[run[0]?.term ?? 0] as TermList;
          const first = run[0] as Block;
          const last = run.at(-1) as Block;
          const rows = await queryAll(client, {
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': termPk(list.term), ':from': first.sk, ':to': last.sk },
          });
          const bySk = new Map(rows.map((row) => [row.sk, row]));
          // Every block of the range was read: the ones between are kept too, for later pieces.
          for (const block of list.blocks.slice(first.index, last.index + 1)) {
            if (block.postings) continue;
            const row = bySk.get(block.sk);
            block.postings = row ? atLengths(decodeColumns(row.p), list.term) : EMPTY;
          }
        }),
      ]);
      // What the reads cost, counted in reads by key (a range of up to five compact blocks counts as one).
      return single.length + ranges.reduce((sum, run) => sum + runCost(run) / KEY_COST, 0);
    }
  }
}

/**
 * A read begun before its result is awaited: a rejection is the awaiting caller's to handle, and this only keeps one
 * left unawaited (the dictionary failed first) from being reported as unhandled.
 */
function observed<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** What a block read by key costs (eventually consistent, under 4 KB), and a full block's size in a range read. */
const KEY_COST = 0.5;
const BLOCK_BYTES = BLOCK_CAPACITY * 3 + 60;
const runCost = (run: readonly Block[]): number =>
  run.length <= 1
    ? KEY_COST * run.length
    : Math.ceil((((run.at(-1)?.index ?? 0) - (run[0]?.index ?? 0) + 1) * BLOCK_BYTES) / 4096) * 0.5;

/** Likely-needed blocks a range read takes along, per wanted block. */
const ALONG_PER_BLOCK = 4;
/** A term's likely blocks are all read by range once its reads so far cost half of what that costs (ski rental). */
const BUY_FACTOR = 2;

const EMPTY = decodeColumns(undefined);

const key = (block: Block) => `${block.term}\u0000${block.sk}`;

/** Blocks by their word (in order of first appearance), each word bounded by its best block. */
function wordsOf(blocks: readonly Block[]): Map<number, { bound: number; blocks: Block[] }> {
  const words = new Map<number, { bound: number; blocks: Block[] }>();
  for (const block of blocks) {
    const word = words.get(block.group) ?? { bound: 0, blocks: [] };
    word.bound = Math.max(word.bound, block.bound);
    word.blocks.push(block);
    words.set(block.group, word);
  }
  return words;
}

/** The index of the first of `length` ids (ascending) that is above `after`. */
function firstAfter(ids: Float64Array, length: number, after: number): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ids[middle] as number) <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Columns without their postings of tf 0 (the shrunk set's ghosts). */
function withoutGhosts(columns: PostingColumns): PostingColumns {
  const keep: number[] = [];
  for (let i = 0; i < columns.length; i++) if ((columns.tfs[i] as number) > 0) keep.push(i);
  const pick = (values: Float64Array) => Float64Array.from(keep, (i) => values[i] as number);
  return { length: keep.length, ids: pick(columns.ids), tfs: pick(columns.tfs), dls: pick(columns.dls) };
}

/** The first entry of the shrunk set (in id order) with an id above `after`. */
function firstShrunkAfter(shrunk: readonly Shrunk[], after: number): number {
  let [low, high] = [0, shrunk.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((shrunk[middle] as Shrunk).id <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Cuts the id line wherever a term's block ends, so each piece lies in one block of each term; returns the pieces
 * that some term has a block over, in descending bound (ties in id order).
 */
function cut(
  lists: TermList[],
  boundOf: (weight: number, max: number, after: number, to: number) => number,
): Interval[] {
  const blocksOf = lists.map((list, term) => {
    const blocks: Block[] = [];
    let after = 0;
    for (const [end, max] of list.entries) {
      blocks.push({
        term,
        group: list.group,
        after,
        to: end,
        bound: boundOf(list.weight, max, after, end),
        sk: sealedSk(end),
        index: blocks.length,
        postings: undefined,
      });
      after = end;
    }
    if (list.tail.postings.length > 0)
      blocks.push({
        term,
        group: list.group,
        after: list.tail.lo,
        to: Number.MAX_SAFE_INTEGER,
        bound: boundOf(list.weight, list.tail.m, list.tail.lo, Number.MAX_SAFE_INTEGER),
        sk: TAIL_SK,
        index: blocks.length,
        postings: list.tail.postings,
      });
    list.blocks = blocks;
    return blocks;
  });
  const ends = [...new Set(blocksOf.flat().flatMap((block) => [block.after, block.to]))].sort(
    (a, b) => a - b,
  );
  const cursors = blocksOf.map(() => 0);
  const intervals: Interval[] = [];
  for (let i = 1; i < ends.length; i++) {
    const after = ends[i - 1] as number;
    const to = ends[i] as number;
    const blocks: Block[] = [];
    blocksOf.forEach((termBlocks, term) => {
      let at = cursors[term] as number;
      while (at < termBlocks.length && (termBlocks[at] as Block).to < to) at++;
      cursors[term] = at;
      const block = termBlocks[at];
      if (block && block.after <= after) blocks.push(block);
    });
    if (blocks.length > 0)
      intervals.push({
        after,
        to,
        blocks,
        bound: [...wordsOf(blocks).values()].reduce((sum, word) => sum + word.bound, 0),
      });
  }
  return intervals.sort((a, b) => b.bound - a.bound || a.after - b.after);
}
