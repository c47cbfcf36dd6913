import * as v from 'valibot';
import { packTerms, StoredChange, StoredTerms, termsChange, withChange } from '../format/terms.ts';

/** An indexed state as a doc record stores it: docs/index-format.md, the doc record. */
const StoredIndexed = v.object({
  version: v.number(),
  dl: v.number(),
  norm: v.number(),
  terms: StoredTerms,
  cut: v.optional(StoredChange),
});
/** A pending state stored as its change from the doc record's committed one (`pendingOf`). */
const StoredPending = v.union([
  StoredIndexed,
  v.object({ version: v.number(), dl: v.number(), norm: v.number(), change: StoredChange }),
]);
const Indexed = v.object({
  version: v.number(),
  dl: v.number(),
  norm: v.number(),
  terms: v.custom<Record<string, number>>(() => true),
  cut: v.custom<Record<string, number>>(() => true),
});
/**
 * A doc record as a writer reads it (docs/index-format.md, the doc record): its committed state, the `pending`
 * states of a rebuild that started and did not commit (their postings may exist), and the lease of the writer on it.
 */
export const DocSchema = v.pipe(
  v.object({
    ...StoredIndexed.entries,
    rev: v.number(),
    pending: v.optional(v.array(StoredPending)),
    leaseOwner: v.optional(v.string()),
    leaseUntil: v.optional(v.number()),
  }),
  v.transform(({ pending, cut, ...doc }) => ({
    ...doc,
    cut: cut ?? {},
    // A pending state is the postings a writer may have reached: its cut is not stored (no posting follows it).
    pending: pending?.map(
      ({ version, dl, norm, ...state }): Indexed => ({
        version,
        dl,
        norm,
        terms: 'change' in state ? withChange(doc.terms, state.change) : state.terms,
        cut: {},
      }),
    ),
  })),
);
export type Indexed = v.InferOutput<typeof Indexed>;
export type Doc = v.InferOutput<typeof DocSchema>;

/** The stored form of an indexed state (the term maps packed: terms.ts). */
export const stored = (state: Indexed) => ({
  version: state.version,
  dl: state.dl,
  norm: state.norm,
  terms: packTerms(state.terms),
  ...(Object.keys(state.cut).length > 0 ? { cut: packTerms(state.cut) } : {}),
});
/**
 * A pending state as a doc record whose committed state is `committed` stores it: its change from the committed
 * map (terms.ts `termsChange`), or the whole map when nothing is committed (a new item's).
 */
const pendingOf = (committed: Indexed, state: Indexed) =>
  Object.keys(committed.terms).length === 0
    ? stored(state)
    : {
        version: state.version,
        dl: state.dl,
        norm: state.norm,
        change: packTerms(termsChange(committed.terms, state.terms)),
      };

/**
 * A doc record's fields while a writer works on it (write-ahead): its committed state, the `pending` state(s) the
 * writer's postings may reach (each stored as its change from the committed one), and the writer's lease.
 */
export const writeAhead = (
  committed: Indexed,
  pending: readonly Indexed[],
  lease: { leaseOwner: string; leaseUntil: number },
) => ({ ...stored(committed), pending: pending.map((state) => pendingOf(committed, state)), ...lease });

/** Nothing indexed: a deleted item's target, and the committed state of an item never indexed. */
export const EMPTY: Indexed = { version: 0, dl: 0, norm: 0, terms: {}, cut: {} };

/** The condition a doc record is written under: its rev as this writer read or last wrote it (0: no record yet). */
export const revCondition = (rev: number) =>
  rev === 0
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': rev } };
