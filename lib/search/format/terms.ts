import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import * as v from 'valibot';

/**
 * A doc record's term map ({term: tf}) as stored: JSON text, brotli-compressed into a binary attribute. As a DynamoDB
 * map, a term like `constructor` breaks the SDK's marshalling (it takes the object for a class instance), and
 * valibot's `record` drops such keys when reading it back; compressed, a Cranfield item's map (89 terms, 1,062 bytes of
 * JSON on average) takes 439 bytes, so its doc record stays under the 1 KB a write unit buys (58 % of them crossed it
 * as text) and a commit, whose transaction charges every KB twice, costs 2 units instead of 4. Quality 6: within 9 % of
 * brotli's best at a twentieth of its time (0.07 ms a map).
 */
const BROTLI = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
};
/** A term map packed for storage (see above). */
export const packTerms = (terms: Readonly<Record<string, number>>): Uint8Array =>
  brotliCompressSync(JSON.stringify(terms), BROTLI);

/** A stored map of counts, packed, whose counts are whole numbers of at least `min`. */
const storedCounts = (min: number, what: string) =>
  v.pipe(
    v.instance(Uint8Array),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(brotliDecompressSync(dataset.value).toString('utf8'));
      } catch {
        addIssue({ message: `${what} must be a stored term map` });
        return NEVER;
      }
      const entries =
        parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : undefined;
      if (!entries?.every(([, tf]) => Number.isSafeInteger(tf) && tf >= min)) {
        addIssue({ message: `${what} must map terms to counts` });
        return NEVER;
      }
      return Object.fromEntries(entries) as Record<string, number>;
    }),
  );

/** A stored term map (packed: `packTerms`). */
export const StoredTerms = storedCounts(1, 'terms');

/**
 * A term map as its change from another (`base`): each term whose tf differs with its new tf, 0 for a term it no
 * longer has. An edit's write-ahead record holds the item's committed map and its target; as a change from the
 * committed one, the target takes a few dozen bytes instead of a second whole map (an edit's doc record stays under
 * the 1 KB a write unit buys, and so does the commit that replaces it, which a transaction charges twice).
 */
export function termsChange(
  base: Readonly<Record<string, number>>,
  target: Readonly<Record<string, number>>,
): Record<string, number> {
  // Built as entries: a term like `__proto__` must stay a key, not reach the object's prototype.
  const change: [string, number][] = [];
  for (const [term, tf] of Object.entries(target))
    if (!Object.hasOwn(base, term) || base[term] !== tf) change.push([term, tf]);
  for (const term of Object.keys(base)) if (!Object.hasOwn(target, term)) change.push([term, 0]);
  return Object.fromEntries(change);
}
/** `base` with `change` (termsChange) applied. */
export function withChange(
  base: Readonly<Record<string, number>>,
  change: Readonly<Record<string, number>>,
): Record<string, number> {
  const out = new Map(Object.entries(base));
  for (const [term, tf] of Object.entries(change))
    if (tf === 0) out.delete(term);
    else out.set(term, tf);
  return Object.fromEntries(out);
}
/** A stored change (termsChange), packed as a term map is. */
export const StoredChange = storedCounts(0, 'change');
