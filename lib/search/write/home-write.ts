import { TRANSACTION_ACTIONS } from '../../dynamodb/write-groups.ts';
import type { Home } from './home-read.ts';
import type { PlannedTail } from './tail-plan.ts';
import { formEntry, homeRecord, ownFields, sealedItem, type Tail, tailItem } from './term-records.ts';
import { type Action, pageUpdates, put, send, type TermStore } from './term-store.ts';

/** A term's writes beside its home's: the blocks its tail seals, and their directory entries. */
function sealActions(store: TermStore, term: string, planned: PlannedTail | undefined): Action[] {
  const sealed = planned?.sealed ?? [];
  return [
    ...sealed.map((block) => put(store, sealedItem(term, block), undefined)),
    ...pageUpdates(store, term, new Map(sealed.map((block) => [block.end, block.m]))),
  ];
}

/** The planned terms in writes of the home of at most a transaction's actions each, in order. */
function homeWrites(store: TermStore, planned: ReadonlyMap<string, PlannedTail>) {
  const writes: { terms: string[]; actions: Action[] }[] = [];
  for (const term of planned.keys()) {
    const actions = sealActions(store, term, planned.get(term));
    const open = writes.at(-1);
    if (open && 1 + open.actions.length + actions.length <= TRANSACTION_ACTIONS) {
      open.terms.push(term);
      open.actions.push(...actions);
    } else writes.push({ terms: [term], actions });
  }
  return writes;
}

/** The home's record with `written` tails in it; the record's other tails as `at` holds them. */
function withTails(home: string, at: HomeAt, written: readonly (readonly [string, Tail])[]) {
  let own = at.own;
  const forms = { ...at.forms };
  for (const [term, tail] of written)
    if (term === home) own = ownFields(tailItem(home, tail));
    else forms[term] = formEntry(tail);
  return { own, forms };
}

/** What a home record holds at a version: its stem's own attributes and its forms' entries. */
type HomeAt = Pick<Home, 'v' | 'own' | 'forms'>;

/** One conditional write of a home record (and its tails' seals): its actions, and the home as it leaves it. */
export interface HomeWrite {
  actions: Action[];
  after: HomeAt;
  /** The tails it writes, by term. */
  written: (readonly [string, Tail])[];
}

/**
 * The writes of a home's planned tails (`planned`), in order, each under the version the last one leaves: one
 * unless they exceed a transaction's actions. `state` is left as it is.
 */
export function homeWritesOf(
  store: TermStore,
  home: string,
  state: Home,
  planned: ReadonlyMap<string, PlannedTail>,
): HomeWrite[] {
  const at = { current: { v: state.v, own: state.own, forms: state.forms } as HomeAt };
  return homeWrites(store, planned).map(({ terms, actions }) => {
    const before = at.current.v;
    const v = (before ?? 0) + 1;
    const written = terms.flatMap((term) => {
      const tail = planned.get(term)?.next;
      return tail ? [[term, tail] as const] : [];
    });
    const { own, forms } = withTails(home, at.current, written);
    at.current = { v, own, forms };
    return {
      actions: [put(store, homeRecord(home, own, forms, v), before), ...actions],
      after: at.current,
      written,
    };
  });
}

/** `state` once `write` has landed. */
export function landed(state: Home, write: HomeWrite) {
  Object.assign(state, write.after);
  for (const [term, tail] of write.written) state.tails.set(term, tail);
}

/**
 * The tail parts of a home's terms (ids above each tail's `lo`) in one conditional write of the home record, a
 * transaction when a tail seals blocks: the tails planned (`planned`) are written into the record, which keeps every
 * other tail it holds as it is. A home whose writes exceed a transaction's actions is written in several, one after
 * another, each under the version the last one left; `state` follows each.
 */
export async function writeHome(
  store: TermStore,
  home: string,
  state: Home,
  planned: ReadonlyMap<string, PlannedTail>,
  fence: () => void,
) {
  for (const write of homeWritesOf(store, home, state, planned)) {
    await send(store, write.actions, fence);
    landed(state, write);
  }
}
