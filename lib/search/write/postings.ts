import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../concurrency.ts';
import { retry } from '../../retry.ts';
import { BLOCK_CAPACITY } from '../format/blocks.ts';
import { homeOf } from '../format/keys.ts';
import type { TermChange } from './block-writes.ts';
import { writeGrouped } from './home-groups.ts';
import { planHome } from './home-plan.ts';
import { type Home, readHomes } from './home-read.ts';
import { writeHome } from './home-write.ts';
import type { Posting } from './norms.ts';
import { applySealed } from './sealed-part.ts';
import { type Guards, LostRace, type TermStore } from './term-store.ts';

export { LENGTH_SLACK, normOf, type Posting, postingsOf } from './norms.ts';
export { appendedTerm, planTail, relisted } from './tail-plan.ts';
export {
  formEntry,
  homeItem,
  ownFields,
  type Sealed,
  sealedItem,
  type Tail,
  tailItem,
} from './term-records.ts';

export interface PostingChanges {
  add?: readonly Posting[];
  remove?: readonly Posting[];
}

/** What a write of postings calls before it writes (term-store.ts `Guards`); each may be left out. */
export type ApplyOptions = Partial<Guards>;

/**
 * A home's changes: the tail parts of its terms in one write of the home record (writeHome); then each term's sealed
 * part (applySealed), under the home's version as each write leaves it.
 */
async function applyHome(
  store: TermStore,
  home: string,
  changes: ReadonlyMap<string, TermChange>,
  state: Home,
  guards: Guards,
) {
  const { planned, sealedParts, tally } = planHome(store, changes, state);
  if (planned.size > 0) await writeHome(store, home, state, planned, guards.fence);
  for (const [term, change] of sealedParts) {
    const tail = state.tails.get(term);
    // Ids at or below lo exist only where a tail does (lo > 0).
    if (!tail || state.v === undefined) continue;
    const result = await applySealed(store, term, change, tail, state.v, guards);
    tally.added += result.added;
    tally.removed += result.removed;
    state.v = result.v;
  }
  return tally;
}

/** A home's changes until they land: a write that lost a race reads the home again and is redone. */
function applyHomeUntilDone(
  store: TermStore,
  home: string,
  changes: ReadonlyMap<string, TermChange>,
  first: Home,
  guards: Guards,
) {
  const terms = [...changes.keys()];
  const read = { state: first };
  return retry(
    async () => {
      try {
        return await applyHome(store, home, changes, read.state, guards);
      } catch (error) {
        if (error instanceof LostRace)
          read.state = (await readHomes(store, new Map([[home, terms]]))).get(home) as Home;
        throw error;
      }
    },
    {
      attempts: 30,
      backoff: { baseMs: 10, maxMs: 200 },
      retryable: (error) => error instanceof LostRace,
      exhausted: () => new Error(`postings of ${terms.join(', ')}: still losing races after 30 attempts`),
    },
  );
}

/** The changes by term, each term's additions in the order given. */
function byTerm(changes: PostingChanges): Map<string, TermChange> {
  const terms = new Map<string, TermChange>();
  const changeOf = (term: string) => {
    const change = terms.get(term) ?? { add: [], remove: new Set<number>() };
    terms.set(term, change);
    return change;
  };
  for (const { term, id, tf, dl } of changes.add ?? []) changeOf(term).add.push({ id, tf, dl });
  for (const { term, id } of changes.remove ?? []) changeOf(term).remove.add(id);
  return terms;
}

/**
 * Applies a batch of posting changes grouped by term, and the terms by home (keys.ts `homeOf`: a stem and its exact
 * forms). Each home is read once (its tails, and the sealed blocks the batch touches) and each record is written once
 * per batch: the tail parts in one conditional write of the home record (writeHome), the sealed parts block by block
 * with the df's change (applySealed). So df always equals the posting count, and a block's directory entry is never
 * below its postings' impacts (docs/index-format.md, the invariants).
 *
 * Putting a posting already in place, or removing one already gone, changes nothing, so every call is idempotent and
 * safe to retry or to run concurrently with another: a write that lost a race re-reads its home and is redone.
 */
export function createPostingWriter({
  client,
  tableName,
  blockCapacity = BLOCK_CAPACITY,
  concurrency = 32,
  writesPerTransaction = 1,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Postings per block at most (tests use tiny blocks to exercise seals and splits); BLOCK_CAPACITY when undefined. */
  blockCapacity?: number | undefined;
  /** Terms written at once. */
  concurrency?: number;
  /** Homes written in one transaction at most (1: a request each; write-groups.ts says when more). */
  writesPerTransaction?: number | undefined;
}) {
  const store: TermStore = { client, tableName, blockCapacity, concurrency, writesPerTransaction };
  async function apply(
    changes: PostingChanges,
    { fence = () => {}, rewrites = () => {} }: ApplyOptions = {},
  ) {
    const terms = byTerm(changes);
    const byHome = Map.groupBy(terms.keys(), homeOf);
    const read = await readHomes(store, byHome);
    const homes = [...byHome].map(([home, of]) => ({
      home,
      changes: new Map(of.map((term) => [term, terms.get(term) as TermChange])),
      state: read.get(home) as Home,
    }));
    const grouped = await writeGrouped(store, homes, fence);
    const rest = homes.filter(({ home }) => !grouped.has(home));
    const results = await mapLimit(rest, concurrency, ({ home, changes, state }) =>
      applyHomeUntilDone(store, home, changes, state, { fence, rewrites }),
    );
    return [...grouped.values(), ...results].reduce(
      (sum, r) => ({ added: sum.added + r.added, removed: sum.removed + r.removed }),
      { added: 0, removed: 0 },
    );
  }
  return {
    /** Applies additions and removals grouped by term (see above); returns how many were added and removed. */
    apply,
    /** Puts postings (those already there are skipped); returns how many it added. */
    add: async (postings: Posting[], options?: ApplyOptions) =>
      (await apply({ add: postings }, options)).added,
    /** Removes postings (those already gone are skipped); returns how many it removed. */
    remove: async (postings: Posting[], options?: ApplyOptions) =>
      (await apply({ remove: postings }, options)).removed,
  };
}

/** The posting writer `createPostingWriter` makes. */
export type PostingWriter = ReturnType<typeof createPostingWriter>;
