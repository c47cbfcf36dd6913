import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { batchGet } from '../dynamodb/batch-get.ts';
import { idf, K1, saturation } from './bm25.ts';
import { dfKey, docKey, impactFromSk, POSTING_PREFIX, REFERENCE_LENGTH, STATS_KEY, termPk } from './keys.ts';
import { parseTerms } from './terms.ts';

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
  /** Postings read per term per round trip. */
  pageSize?: number;
  /** A query stops after this many postings and returns its best results so far. */
  maxPostings?: number;
}

const Posting = v.object({ sk: v.string(), i: v.number(), tf: v.number(), dl: v.number() });
const Doc = v.object({ pk: v.string(), dl: v.number(), terms: v.string() });

interface List {
  term: string;
  /** idf times the term's occurrences in the query. */
  idf: number;
  startKey: Record<string, unknown> | undefined;
  done: boolean;
  /** The most any unread posting of this list can add to a score. */
  bound: number;
}
interface Candidate {
  lower: number;
  seen: Set<string>;
}

/**
 * BM25 top-k over the postings of the query terms, never over the collection. Lists are read in descending
 * impact order, round by round, and the query stops as soon as no unread posting can change the top k
 * (Fagin's threshold algorithm). The bound is safe: impacts were computed at REFERENCE_LENGTH, and a
 * posting's saturation at the current average length is at most impact × max(1, avgdl / REFERENCE_LENGTH).
 */
export function createSearch({ client, tableName, pageSize = 200, maxPostings = 50_000 }: SearchOptions) {
  return async function search({ terms, topK, minScore, accept }: SearchRequest): Promise<Hit[]> {
    const meta = await batchGet(client, tableName, [STATS_KEY, ...[...terms.keys()].map(dfKey)]);
    const stats = meta.find((r) => r.pk === STATS_KEY.pk);
    const docs = typeof stats?.docs === 'number' ? stats.docs : 0;
    if (docs <= 0) return [];
    const avgdl = (typeof stats?.len === 'number' ? stats.len : 0) / docs || 1;
    const stretch = Math.max(1, avgdl / REFERENCE_LENGTH);
    const lists: List[] = [];
    for (const [term, occurrences] of terms) {
      const df = meta.find((r) => r.pk === termPk(term) && r.sk === 'DF')?.df;
      if (typeof df === 'number' && df > 0) {
        const weight = occurrences * idf(docs, df);
        lists.push({ term, idf: weight, startKey: undefined, done: false, bound: weight * (K1 + 1) });
      }
    }

    const candidates = new Map<number, Candidate>();
    const rejected = new Set<number>();
    let read = 0;
    const open = () => lists.filter((list) => !list.done);
    const upper = (c: Candidate) =>
      c.lower + open().reduce((sum, l) => sum + (c.seen.has(l.term) ? 0 : l.bound), 0);

    while (true) {
      const ranked = [...candidates].sort(([a, x], [b, y]) => y.lower - x.lower || a - b);
      const top = ranked.slice(0, topK);
      const unseen = open().reduce((sum, list) => sum + list.bound, 0);
      const kth = top.length === topK ? (top.at(-1)?.[1].lower ?? 0) : Number.NEGATIVE_INFINITY;
      const rest = Math.max(unseen, ...ranked.slice(topK).map(([, c]) => upper(c)));
      const settled =
        open().length === 0 || read >= maxPostings || kth >= rest || Math.max(kth, rest) <= minScore;
      if (settled) {
        const ids = top.map(([id]) => id);
        const kept = await accept(ids);
        const failed = ids.filter((id) => !kept.has(id));
        if (failed.length === 0) return exact(top.map(([id]) => id));
        for (const id of failed) {
          rejected.add(id);
          candidates.delete(id);
        }
        continue;
      }
      await Promise.all(open().map(readPage));
    }

    async function readPage(list: List): Promise<void> {
      const reply = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': termPk(list.term), ':p': POSTING_PREFIX },
          ProjectionExpression: 'sk, i, tf, dl',
          Limit: pageSize,
          ...(list.startKey ? { ExclusiveStartKey: list.startKey } : {}),
        }),
      );
      const postings = (reply.Items ?? []).map((item) => v.parse(Posting, item));
      read += postings.length;
      for (const posting of postings) {
        if (rejected.has(posting.i)) continue;
        const candidate = candidates.get(posting.i) ?? { lower: 0, seen: new Set<string>() };
        if (candidate.seen.has(list.term)) continue;
        candidate.lower += list.idf * (K1 + 1) * saturation({ tf: posting.tf, dl: posting.dl, avgdl });
        candidate.seen.add(list.term);
        candidates.set(posting.i, candidate);
      }
      list.startKey = reply.LastEvaluatedKey;
      const last = postings.at(-1);
      list.done = !reply.LastEvaluatedKey;
      list.bound =
        list.done || !last ? 0 : list.idf * (K1 + 1) * Math.min(1, (impactFromSk(last.sk) / 1e6) * stretch);
    }

    /** Scores the chosen ids exactly from their doc records (a candidate may not have been seen in every list). */
    async function exact(ids: number[]): Promise<Hit[]> {
      const records = await batchGet(client, tableName, ids.map(docKey));
      // Term maps are JSON text (see indexer.ts); look terms up as own keys only (`constructor` is a word too).
      const byId = new Map(
        records
          .map((r) => v.parse(Doc, r))
          .map((d) => [
            Number(d.pk.slice(2)),
            { dl: d.dl, terms: new Map(Object.entries(parseTerms(d.terms))) },
          ]),
      );
      const hits: Hit[] = [];
      for (const id of ids) {
        const doc = byId.get(id);
        if (!doc) continue;
        const matchedTerms = lists.filter((l) => (doc.terms.get(l.term) ?? 0) > 0).map((l) => l.term);
        const score = lists.reduce((sum, l) => {
          const tf = doc.terms.get(l.term) ?? 0;
          return tf > 0 ? sum + l.idf * (K1 + 1) * saturation({ tf, dl: doc.dl, avgdl }) : sum;
        }, 0);
        if (matchedTerms.length > 0 && score > minScore) hits.push({ id, score, matchedTerms });
      }
      return hits.sort((a, b) => b.score - a.score || a.id - b.id);
    }
  };
}
