import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { BLOCK_CAPACITY, type BlockPosting, decodeBlock } from '../format/blocks.ts';
import { idf, K1, termScore } from '../format/bm25.ts';
import {
  BLOCK_PREFIX,
  DF_SK,
  dfKey,
  docKey,
  idOfDocPk,
  idOfKey,
  impactOfKey,
  REFERENCE_LENGTH,
  STATS_KEY,
  termPk,
} from '../format/keys.ts';
import { parseTerms } from '../format/terms.ts';

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
  /** Keeps the ids that pass the caller's filter (and still exist). */
  accept: (ids: number[]) => Promise<Set<number>>;
}

export interface SearchOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Blocks of postings read per term in the first round trip (enough for most single-term and rare-term queries). */
  pageBlocks?: number;
  /** Blocks read per term in each later round trip (up to the budget): fewer rounds for long lists. */
  laterPageBlocks?: number;
  /**
   * The writer's block capacity (blocks.ts). A split leaves two half-full blocks (removals may empty them further),
   * so a page asks for the blocks that hold what is left of the budget at half fill, never more than its page size.
   */
  blockCapacity?: number;
  /**
   * A list stops being read once this many of its postings were (whole blocks are read, so the last page can
   * carry it past by less than a page), so a query's read units have a ceiling whatever the collection's size.
   * A list cut short leaves the ranking approximate: the best candidates found are then scored exactly.
   */
  maxPostingsPerTerm?: number;
  /** Per-term ceiling while a filter keeps rejecting candidates and too few remain (the budget doubles up to it). */
  filterMaxPostingsPerTerm?: number;
  /** When lists were cut short, this many candidates per result are scored exactly before the top k is chosen. */
  poolPerResult?: number;
}

/** The service's settings (what POST /retrieve and POST /generate run); the benchmark reports against these. */
export const SEARCH_DEFAULTS = {
  pageBlocks: 4,
  laterPageBlocks: 12,
  maxPostingsPerTerm: 1_000,
  filterMaxPostingsPerTerm: 16_000,
  poolPerResult: 4,
} as const;

/** A block as a query reads it: only its postings text (its key says nothing a posting does not). */
const Block = v.object({ p: v.string() });
const Doc = v.object({ pk: v.string(), dl: v.number(), terms: v.string() });

interface List {
  /** Its place in the query's lists, the order scores are summed in. */
  index: number;
  term: string;
  /** idf times the term's occurrences in the query. */
  idf: number;
  startKey: Record<string, unknown> | undefined;
  /** Every posting read. */
  done: boolean;
  /** Postings read so far (against the per-term budget). */
  read: number;
  /** The term's posting count: a list read that far is done, even when its last page ended on a page limit. */
  df: number;
  /** The most any unread posting of this list can add to a score. */
  bound: number;
}
interface Page {
  postings: BlockPosting[];
  lastKey: Record<string, unknown> | undefined;
}
interface Candidate {
  /** The sum of `parts` in list order: the same additions, in the same order, as an exact score from a doc record. */
  lower: number;
  /** Each list's contribution, by list index, once the candidate was seen in it. */
  parts: (number | undefined)[];
  seen: Set<string>;
}

/**
 * BM25 top-k over the postings of the query terms, never over the collection. Lists are read in descending
 * impact order, round by round, and the query stops as soon as no unread posting can change the top k
 * (Fagin's threshold algorithm). The bound is safe: impacts were computed at REFERENCE_LENGTH, and a
 * posting's saturation at the current average length is at most impact × max(1, avgdl / REFERENCE_LENGTH).
 *
 * Exactness costs reads that grow with the lists for queries of several common terms (the k-th score is only
 * proven once every list is read below it), so each list is read to `maxPostingsPerTerm` at most. A proven top k
 * is scored exactly from its doc records (with any candidate that could tie with its last); when a list was cut
 * short instead, `poolPerResult` × k of the best candidates found are scored exactly and the ranking is
 * approximate, though every score in it is exact. A filter that
 * rejects candidates until too few remain raises the per-term ceiling, doubling up to `filterMaxPostingsPerTerm`.
 */
export function createSearch({
  client,
  tableName,
  pageBlocks = SEARCH_DEFAULTS.pageBlocks,
  laterPageBlocks = SEARCH_DEFAULTS.laterPageBlocks,
  blockCapacity = BLOCK_CAPACITY,
  maxPostingsPerTerm = SEARCH_DEFAULTS.maxPostingsPerTerm,
  filterMaxPostingsPerTerm = SEARCH_DEFAULTS.filterMaxPostingsPerTerm,
  poolPerResult = SEARCH_DEFAULTS.poolPerResult,
}: SearchOptions) {
  const leastFill = Math.max(1, Math.floor(blockCapacity / 2));
  /** Blocks to ask for: enough for `postings` more at the least fill, at least one, at most `pageLimit`. */
  const blocksFor = (postings: number, pageLimit: number) =>
    Math.max(1, Math.min(pageLimit, Math.ceil(postings / leastFill)));

  /** Reads up to `limit` blocks of a term's postings in descending impact order, from after `startKey`. */
  async function fetchPage(
    term: string,
    startKey: Record<string, unknown> | undefined,
    limit: number,
  ): Promise<Page> {
    const reply = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :b)',
        ExpressionAttributeValues: { ':pk': termPk(term), ':b': BLOCK_PREFIX },
        ExpressionAttributeNames: { '#p': 'p' },
        ProjectionExpression: '#p',
        Limit: limit,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    return {
      postings: (reply.Items ?? []).flatMap((item) => decodeBlock(v.parse(Block, item).p)),
      lastKey: reply.LastEvaluatedKey,
    };
  }

  return async function search({ terms, topK, minScore, accept }: SearchRequest): Promise<Hit[]> {
    let budget = Math.min(maxPostingsPerTerm, filterMaxPostingsPerTerm);
    // The first page of every list is read while the corpus statistics and dfs are (it needs neither): one round
    // trip less on every query. A term with no postings costs one empty Query.
    const [meta, firstPages] = await Promise.all([
      batchGet(client, tableName, [STATS_KEY, ...[...terms.keys()].map(dfKey)]),
      Promise.all([...terms.keys()].map((term) => fetchPage(term, undefined, blocksFor(budget, pageBlocks)))),
    ]);
    const stats = meta.find((r) => r.pk === STATS_KEY.pk);
    const docs = typeof stats?.docs === 'number' ? stats.docs : 0;
    if (docs <= 0) return [];
    const avgdl = (typeof stats?.len === 'number' ? stats.len : 0) / docs || 1;
    const stretch = Math.max(1, avgdl / REFERENCE_LENGTH);
    const firstPageOf = new Map([...terms.keys()].map((term, i) => [term, firstPages[i]]));
    const lists: List[] = [];
    for (const [term, occurrences] of terms) {
      const recorded = meta.find((r) => r.pk === termPk(term) && r.sk === DF_SK)?.df;
      // A term whose postings fit one block has no DF record (postings.ts): its df is its first page's count.
      const df = typeof recorded === 'number' ? recorded : (firstPageOf.get(term)?.postings.length ?? 0);
      if (df > 0) {
        // A df above N only exists for a moment (a rebuild adds an item's new postings before it removes the old
        // ones and commits the counts); clamped, a term's weight stays positive meanwhile.
        const weight = occurrences * idf(docs, Math.min(df, docs));
        lists.push({
          index: lists.length,
          term,
          idf: weight,
          startKey: undefined,
          done: false,
          read: 0,
          df,
          bound: weight * (K1 + 1),
        });
      }
    }

    const candidates = new Map<number, Candidate>();
    const rejected = new Set<number>();
    const scored = new Map<number, Hit | undefined>();
    /** Ids whose doc record was missing when they were scored. */
    const unindexedIds = new Set<number>();
    for (const list of lists) {
      const page = firstPageOf.get(list.term);
      if (page) applyPage(list, page);
    }

    while (true) {
      const ranked = [...candidates].sort(([a, x], [b, y]) => y.lower - x.lower || a - b);
      const top = ranked.slice(0, topK);
      const unfinished = lists.filter((list) => !list.done);
      const reading = unfinished.filter((list) => list.read < budget);
      const kth = top.length === topK ? (top.at(-1)?.[1].lower ?? 0) : Number.NEGATIVE_INFINITY;
      const upperOf = (candidate: Candidate, unread: List[]) => {
        let upper = candidate.lower;
        for (const list of unread) if (!candidate.seen.has(list.term)) upper += list.bound;
        return upper;
      };
      // The most an unseen item, or a candidate outside the top k, can still reach (a loop: there may be many).
      const restOf = (unread: List[]) => {
        let rest = unread.reduce((sum, list) => sum + list.bound, 0);
        for (let i = topK; i < ranked.length; i++) {
          const candidate = ranked[i]?.[1];
          if (candidate) rest = Math.max(rest, upperOf(candidate, unread));
        }
        return rest;
      };
      const rest = restOf(reading);
      if (reading.length > 0 && kth < rest && Math.max(kth, rest) > minScore) {
        const pages = await Promise.all(
          reading.map((list) =>
            fetchPage(list.term, list.startKey, blocksFor(budget - list.read, laterPageBlocks)),
          ),
        );
        // Pages are applied in list order, so scores add up in the same order on every run.
        reading.forEach((list, i) => {
          const page = pages[i];
          if (page) applyPage(list, page);
        });
        continue;
      }
      // Settled. Proven exact when nothing left unread (lists cut by the budget included) can enter the top k:
      // then the top k, and any candidate that could tie with its last, are scored exactly. Otherwise a list was
      // cut short: a larger pool is scored exactly and its best taken.
      const bound = reading.length === unfinished.length ? rest : restOf(unfinished);
      const proven = kth >= bound || Math.max(kth, bound) <= minScore;
      // A candidate seen in every unfinished list is known exactly (its lower bound is its score, summed as a doc
      // record would be), so the ranking by (score, id) already places it: only partly seen ones can still tie.
      const pool = proven
        ? ranked.filter(([, c], i) => {
            if (i < topK) return true;
            const upper = upperOf(c, unfinished);
            return upper > c.lower && upper >= kth && upper > minScore;
          })
        : ranked.slice(0, topK * poolPerResult);
      const ids = pool.map(([id]) => id);
      // A proven pool is the answer (but for ties and filters): its items are fetched while it is scored.
      const [hits, keptPool] = proven
        ? await Promise.all([exact(ids), accept(ids)])
        : [await exact(ids), undefined];
      const chosen = hits.slice(0, topK);
      const kept = keptPool ?? (await accept(chosen.map((hit) => hit.id)));
      const failed = chosen.filter((hit) => !kept.has(hit.id)).map((hit) => hit.id);
      // Postings without a doc record (left by a crashed rebuild until the next one) are no answer either.
      const unindexed = ids.filter((id) => unindexedIds.has(id));
      if (failed.length === 0 && (chosen.length === topK || unindexed.length === 0)) return chosen;
      for (const id of [...failed, ...unindexed]) {
        rejected.add(id);
        candidates.delete(id);
      }
      if (!proven && candidates.size < topK * poolPerResult && budget < filterMaxPostingsPerTerm) {
        budget = Math.min(filterMaxPostingsPerTerm, budget * 2);
      }
    }

    /** Adds a page of a list's postings to the candidates and lowers the list's bound to its last impact. */
    function applyPage(list: List, { postings, lastKey }: Page): void {
      list.read += postings.length;
      for (const posting of postings) {
        const id = idOfKey(posting.key);
        if (rejected.has(id)) continue;
        const candidate = candidates.get(id) ?? { lower: 0, parts: [], seen: new Set<string>() };
        if (candidate.seen.has(list.term)) continue;
        candidate.parts[list.index] = termScore({ tf: posting.tf, dl: posting.dl, avgdl, idf: list.idf });
        candidate.lower = candidate.parts.reduce(
          (sum: number, part) => (part === undefined ? sum : sum + part),
          0,
        );
        candidate.seen.add(list.term);
        candidates.set(id, candidate);
      }
      list.startKey = lastKey;
      const last = postings.at(-1);
      list.done = !lastKey || list.read >= list.df;
      list.bound =
        list.done || !last ? 0 : list.idf * (K1 + 1) * Math.min(1, (impactOfKey(last.key) / 1e6) * stretch);
    }

    /**
     * Scores ids exactly from their doc records (a candidate may not have been seen in every list), best first;
     * ids without a doc record or a score above minScore drop out. Scores are kept for later rounds.
     */
    async function exact(ids: number[]): Promise<Hit[]> {
      const missing = ids.filter((id) => !scored.has(id));
      const records = await batchGet(client, tableName, missing.map(docKey));
      for (const id of missing) {
        scored.set(id, undefined);
        unindexedIds.add(id);
      }
      for (const record of records) {
        const doc = v.parse(Doc, record);
        // Term maps are JSON text (see indexer.ts); look terms up as own keys only (`constructor` is a word too).
        const tf = new Map(Object.entries(parseTerms(doc.terms)));
        const matchedTerms = lists.filter((l) => (tf.get(l.term) ?? 0) > 0).map((l) => l.term);
        const score = lists.reduce((sum, l) => {
          const count = tf.get(l.term) ?? 0;
          return count > 0 ? sum + termScore({ tf: count, dl: doc.dl, avgdl, idf: l.idf }) : sum;
        }, 0);
        const id = idOfDocPk(doc.pk) ?? 0;
        unindexedIds.delete(id);
        scored.set(id, matchedTerms.length > 0 && score > minScore ? { id, score, matchedTerms } : undefined);
      }
      return ids
        .flatMap((id) => {
          const hit = scored.get(id);
          return hit ? [hit] : [];
        })
        .sort((a, b) => b.score - a.score || a.id - b.id);
    }
  };
}
