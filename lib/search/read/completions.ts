import { dfClass, PREFIX_PARTITION_LENGTH } from '../format/keys.ts';
import { MAX_TOKEN_LENGTH } from '../text/tokenizer.ts';
import { type ClassedTerm, type Dictionary, inTermOrder } from './dictionary.ts';

/** Contract §8.3. */
export const PREFIX_MIN_LENGTH = PREFIX_PARTITION_LENGTH;
export const PREFIX_TERMS = 50;

/**
 * The `limit` terms with the most postings among `terms` (ties in term order), in term order. The dictionary gives
 * each term's df class, and every df of a class is above every df of a lower one (keys.ts), so whole classes are
 * taken from the top while they fit; only the class where the limit falls needs its terms' dfs, read by `dfOf` (and a
 * term whose class is not known is read first). A term whose df reads 0 has no postings left, and is not one.
 */
export async function mostFrequent(
  terms: readonly ClassedTerm[],
  limit: number,
  dfOf: Dictionary['dfOf'],
): Promise<ClassedTerm[]> {
  if (terms.length <= limit) return [...terms].sort((a, b) => inTermOrder(a.term, b.term));
  const unknown = terms.filter((t) => t.dfClass === undefined).map((t) => t.term);
  const read = unknown.length > 0 ? await dfOf(unknown) : new Map<string, number>();
  const byClass = termsByClass(terms, read);
  const taken: ClassedTerm[] = [];
  for (const c of [...byClass.keys()].sort((a, b) => b - a)) {
    const members = byClass.get(c) ?? [];
    const room = limit - taken.length;
    if (members.length <= room) taken.push(...members.map((term) => ({ term, dfClass: c })));
    else taken.push(...(await mostFrequentOfClass(members, room, read, dfOf)));
    if (taken.length >= limit) break;
  }
  return taken.sort((a, b) => inTermOrder(a.term, b.term));
}

/** The terms of each df class, in the order given: a term's known class, or the class of its df `read`. */
function termsByClass(
  terms: readonly ClassedTerm[],
  read: ReadonlyMap<string, number>,
): Map<number, string[]> {
  const byClass = new Map<number, string[]>();
  for (const { term, dfClass: known } of terms) {
    const df = read.get(term);
    const c = known ?? (df !== undefined && df > 0 ? dfClass(df) : undefined);
    if (c === undefined) continue;
    const members = byClass.get(c);
    if (members === undefined) byClass.set(c, [term]);
    else members.push(term);
  }
  return byClass;
}

/**
 * The `room` terms of the class where the limit falls that have the most postings (ties in term order): only here
 * do dfs within one class decide, so only here are the dfs not yet `read` read.
 */
async function mostFrequentOfClass(
  members: readonly string[],
  room: number,
  read: ReadonlyMap<string, number>,
  dfOf: Dictionary['dfOf'],
): Promise<ClassedTerm[]> {
  const unread = members.filter((term) => !read.has(term));
  const dfs = new Map([...read, ...(unread.length > 0 ? await dfOf(unread) : [])]);
  const ranked = members
    .map((term) => ({ term, df: dfs.get(term) ?? 0 }))
    .filter(({ df }) => df > 0)
    .sort((a, b) => b.df - a.df || inTermOrder(a.term, b.term));
  return ranked.slice(0, room).map(({ term, df }) => ({ term, dfClass: dfClass(df) }));
}

/** The terms that complete `word` (§8.3): the `limit` with the most postings, in term order, with their df classes. */
export async function completions(
  dictionary: Dictionary,
  word: string,
  limit = PREFIX_TERMS,
): Promise<ClassedTerm[]> {
  const length = [...word].length;
  if (length < PREFIX_MIN_LENGTH || length > MAX_TOKEN_LENGTH) return [];
  return mostFrequent(await dictionary.withPrefix(word), limit, dictionary.dfOf);
}
