import type { TermChange } from './block-writes.ts';
import type { Home } from './home-read.ts';
import { type PlannedTail, planTail } from './tail-plan.ts';
import type { TermStore } from './term-store.ts';

/** A term's change split at its tail's `lo`: the ids above it (its tail part), and those at or below (sealed part). */
function splitAtLo(change: TermChange, lo: number) {
  const above = (id: number) => id > lo;
  return {
    tailPart: {
      add: change.add.filter((p) => above(p.id)),
      remove: new Set([...change.remove].filter(above)),
    },
    sealedPart: {
      add: change.add.filter((p) => !above(p.id)),
      remove: new Set([...change.remove].filter((id) => !above(id))),
    },
  };
}

const isEmpty = (change: TermChange) => change.add.length + change.remove.size === 0;

/** What a home's changes come to against the home as `state` holds it. */
export interface HomePlan {
  /** The tails its write of the home record changes, by term. */
  planned: Map<string, PlannedTail>;
  /** The changes to its terms' sealed blocks (ids at or below a tail's `lo`), by term. */
  sealedParts: Map<string, TermChange>;
  /** The postings its tails' writes add and remove (the sealed parts count theirs as they land). */
  tally: { added: number; removed: number };
}

/** A home's changes (`changes`, by term) planned against `state`: the pure step before its writes. */
export function planHome(store: TermStore, changes: ReadonlyMap<string, TermChange>, state: Home): HomePlan {
  const plan: HomePlan = { planned: new Map(), sealedParts: new Map(), tally: { added: 0, removed: 0 } };
  for (const [term, change] of changes) {
    const tail = state.tails.get(term);
    const { tailPart, sealedPart } = splitAtLo(change, tail?.lo ?? 0);
    if (!isEmpty(tailPart)) {
      const planned = planTail(tail, tailPart, store.blockCapacity);
      plan.tally.added += planned.result.added;
      plan.tally.removed += planned.result.removed;
      if (planned.result.changed) plan.planned.set(term, planned);
    }
    if (!isEmpty(sealedPart)) plan.sealedParts.set(term, sealedPart);
  }
  return plan;
}
