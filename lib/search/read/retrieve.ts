import type { ItemLookup } from '../../items/reader.ts';
import type { Item } from '../../items/schema.ts';
import { termFrequencies } from '../format/bm25.ts';
import { indexTerms, isExactForm, itemText } from '../text/tokenizer.ts';
import { AnswerCache } from './answers.ts';
import { BlockCache } from './block-cache.ts';
import { createDictionary, type Dictionary, lessGhosts, type VersionedDictionary } from './dictionary.ts';
import { expandQuery } from './expand.ts';
import { FIRST_READS_CACHE_MS, TAIL_READS_CACHE_MS } from './first-reads.ts';
import { highlights } from './highlight.ts';
import { createSearch, type FirstReads, type Hit, type ItemTerms } from './query.ts';
import type { Filter, RetrieveRequest, RetrieveResponse } from './schema.ts';
import { matchesWhere } from './where.ts';

/** True when the item carries every filter tag and has every filter attribute with exactly that value. */
export function matchesFilter(item: Item, filter: Filter | undefined): boolean {
  if (!filter) return true;
  if (filter.tags && !filter.tags.every((tag) => item.tags.includes(tag))) return false;
  if (filter.attributes) {
    for (const [key, value] of Object.entries(filter.attributes)) {
      if (!Object.hasOwn(item.attributes, key) || item.attributes[key] !== value) return false;
    }
  }
  return true;
}

/** A retrieve request; the options of contract §8 may be left out (as in v1). */
export type RetrieveInput = WithOptional<RetrieveRequest, SearchOption>;
/** The request fields of contract §8 (v1.1): each may be left out. */
export type SearchOption = 'prefix' | 'typos' | 'highlight';
/** `T` with the keys `K` optional (and possibly undefined). */
export type WithOptional<T, K extends keyof T> = Omit<T, K> & { [P in K]?: T[P] | undefined };
export type Retriever = (request: RetrieveInput) => Promise<RetrieveResponse>;

/** An item's terms and length as the index analyses its text (the search scores an answer from them). */
export function itemTerms(item: Item): ItemTerms {
  const { tokens, dl } = indexTerms(itemText(item));
  return { tfs: termFrequencies(tokens), dl };
}

/**
 * The items a query fetched to filter its candidates (eventually consistent, as every read of the index: half the read
 * units, and a write still shows within the contract's 2 s), and their terms as the index analyses their text: the
 * search scores the answers from them, and lists their matched terms from them, so it leaves unread the blocks of a
 * word's weaker alternatives that cannot change a score.
 */
class FetchedItems {
  readonly fetched = new Map<number, Item>();
  readonly #analysed = new Map<number, ItemTerms>();
  readonly #items: ItemLookup;

  constructor(items: ItemLookup) {
    this.#items = items;
  }

  /** The ids whose items exist and pass `filter` and `where` (items deleted after they were indexed never appear). */
  async accept(
    ids: number[],
    { filter, where }: Pick<RetrieveInput, 'filter' | 'where'>,
  ): Promise<Set<number>> {
    const missing = ids.filter((id) => !this.fetched.has(id));
    for (const [id, item] of await this.#items.getMany(missing, { consistent: false }))
      this.fetched.set(id, item);
    return new Set(
      ids.filter((id) => {
        const item = this.fetched.get(id);
        return item !== undefined && matchesFilter(item, filter) && (!where || matchesWhere(item, where));
      }),
    );
  }

  /** A fetched item's terms and length. */
  itemOf(id: number): ItemTerms | undefined {
    const item = this.fetched.get(id);
    if (!item) return undefined;
    const held = this.#analysed.get(id) ?? itemTerms(item);
    if (!this.#analysed.has(id)) this.#analysed.set(id, held);
    return held;
  }
}

/** A search's hits as results: with their items, matched stems, and highlights when asked for. */
function resultsOf(hits: readonly Hit[], fetched: ReadonlyMap<number, Item>, highlight: boolean | undefined) {
  const results = hits.flatMap((hit) => {
    const item = fetched.get(hit.id);
    if (!item) return [];
    const { score } = hit;
    // An exact form (tokenizer.ts) is matched only beside its stem: the stems name what matched.
    const matchedTerms = hit.matchedTerms.filter((term) => !isExactForm(term));
    return [
      { score, item, matchedTerms, ...(highlight ? { highlights: highlights(item, matchedTerms) } : {}) },
    ];
  });
  return results.map((result, index) => ({ rank: index + 1, ...result }));
}

type Search = ReturnType<typeof createSearch>;
/** A dictionary as one query reads it, and the versions of the index its kept reads relied on. */
type Words = { dictionary: Dictionary; reliedOn: ReadonlySet<number> };
/** What one query works with: the search, the items, the answers a container keeps (if any), the version check. */
interface Means {
  search: Search;
  items: ItemLookup;
  answers: AnswerCache | undefined;
  holds: (started: FirstReads | undefined, reliedOn: ReadonlySet<number>) => Promise<boolean>;
}

/**
 * Retrieval: the query's terms (widened by `prefix` and `typos` through the dictionary), the BM25 top k that pass
 * `filter` and `where` (evaluated on the fetched items, under the search's budgets: a selective one raises them as a
 * filter does), returned with their items, and with `highlight` where each matched. A versioned dictionary
 * (dictionary.ts) may answer the expansion from reads kept while the index has not changed: the query's own corpus
 * counts tell whether it has, and if it has, the query is made again with the dictionary read afresh. With `answers`,
 * an answer is served again while its first reads find what they found when it was ranked (answers.ts).
 */
export function createRetriever({
  search,
  items,
  dictionary,
  answers,
}: {
  search: Search;
  items: ItemLookup;
  dictionary: Dictionary | VersionedDictionary;
  answers?: AnswerCache | undefined;
}): Retriever {
  const versioned = 'session' in dictionary ? dictionary : undefined;
  /** Whether an expansion holds: every version it relied on is the index's, as this query's counts read it. */
  async function holds(started: FirstReads | undefined, reliedOn: ReadonlySet<number>) {
    if (!started || !versioned) return true;
    const { commits } = await started.stats;
    versioned.observe(commits);
    return [...reliedOn].every((version) => version === commits);
  }
  const means: Means = { search, items, answers, holds };
  const retrieve = (request: RetrieveInput, words: Words) => retrieveOnce(means, request, words);
  return async (request) =>
    (versioned ? await retrieve(request, versioned.session()) : undefined) ??
    // Without a versioned dictionary, or made again: no read kept past its time (so no version to check).
    ((await retrieve(request, { dictionary, reliedOn: new Set() })) as RetrieveResponse);
}

/** The query expanded through `words`; undefined if it relied on a version of the dictionary the index has left. */
async function retrieveOnce(
  { search, items, answers, holds }: Means,
  request: RetrieveInput,
  words: Words,
): Promise<RetrieveResponse | undefined> {
  const { query, topK, minScore, prefix, typos, highlight } = request;
  // With `prefix` or `typos` the dictionary is read first; the words' own terms are known already, so their first
  // reads (and the corpus counts) start beside it.
  const started = prefix || typos ? search.start(indexTerms(query).tokens) : undefined;
  // The dictionary's dfs less the shrunk set's ghosts, read with the counts.
  const dictionary = started
    ? lessGhosts(
        words.dictionary,
        started.stats.then(({ shrunk }) => shrunk.ghosts),
      )
    : words.dictionary;
  const { weights: terms, wordOf, small } = await expandQuery(query, { prefix, typos }, dictionary);
  if (terms.size === 0)
    return words.reliedOn.size === 0 || (await holds(started, words.reliedOn))
      ? { query, results: [] }
      : undefined;
  const fetched = new FetchedItems(items);
  const itemOf = (id: number) => fetched.itemOf(id);
  const matchedTermsOf = (id: number) => {
    const held = itemOf(id)?.tfs;
    return [...terms.keys()].filter((term) => held?.has(term));
  };
  const accept = (ids: number[]) => fetched.accept(ids, request);
  const prepared = await search.prepare({
    terms,
    wordOf,
    topK,
    minScore,
    accept,
    small,
    started,
    matchedTermsOf,
    itemOf,
  });
  // Only a retriever that keeps answers needs their key.
  const key = answers ? answerKey(request, terms, wordOf) : '';
  const kept = await keptAnswer(answers, key, prepared.stamp, items);
  const hits = kept ? [] : await prepared.run();
  // Checked once the search has read the counts (in its first round, beside the expansion's terms).
  if (!(await holds(started, words.reliedOn))) return undefined;
  if (kept) return kept;
  const response = { query, results: resultsOf(hits, fetched.fetched, highlight) };
  answers?.keep(key, prepared.stamp, response);
  return response;
}

/**
 * The answer kept for `key` under `stamp`, if any: its items read again once ANSWER_CACHE_MS old, and the answer
 * served only if each is still at the version it holds (the same fields: the same scores, filters and highlights).
 */
async function keptAnswer(answers: AnswerCache | undefined, key: string, stamp: string, items: ItemLookup) {
  const kept = answers?.get(key, stamp);
  if (!kept || kept.checked) return kept?.response;
  const { results } = kept.response;
  const now = await items.getMany(
    results.map(({ item }) => item.id),
    { consistent: false },
  );
  if (!results.every(({ item }) => now.get(item.id)?.version === item.version)) return undefined;
  answers?.checked(key);
  return kept.response;
}

/** What an answer depends on besides its stamp: the request, and the terms its words were expanded to. */
const answerKey = (
  { query, topK, minScore, filter, where, highlight }: RetrieveInput,
  terms: ReadonlyMap<string, number>,
  wordOf: ReadonlyMap<string, string> | undefined,
) =>
  JSON.stringify([
    query,
    topK,
    minScore,
    filter ?? null,
    where ?? null,
    highlight ?? false,
    [...terms],
    [...(wordOf ?? [])],
  ]);

/**
 * The retriever POST /retrieve and POST /generate run: the service's search settings, its first reads kept
 * (the counts FIRST_READS_CACHE_MS, tails TAIL_READS_CACHE_MS), its sealed blocks kept (block-cache.ts), the term
 * dictionary, and its answers kept (answers.ts).
 */
export function createServiceRetriever({
  client,
  tableName,
  items,
}: {
  client: Parameters<typeof createSearch>[0]['client'];
  tableName: string;
  items: ItemLookup;
}): Retriever {
  return createRetriever({
    search: createSearch({
      client,
      tableName,
      firstReads: { cacheMs: FIRST_READS_CACHE_MS, tailCacheMs: TAIL_READS_CACHE_MS },
      blocks: new BlockCache(),
    }),
    items,
    dictionary: createDictionary({ client, tableName }),
    answers: new AnswerCache(),
  });
}
