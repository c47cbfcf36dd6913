import type { Home } from './home-read.ts';
import type { PlannedTail } from './tail-plan.ts';
import { formEntry, homeRecord, ownFields, sealedItem, type Tail, tailItem } from './term-records.ts';
import {
  ACTIONS_PER_TRANSACTION,
  type Action,
  pageUpdates,
  put,
  send,
  type TermStore,
} from './term-store.ts';

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
    if (open && 1 + open.actions.length + actions.length <= ACTIONS_PER_TRANSACTION) {
      open.terms.push(term);
      open.actions.push(...actions);
    } else writes.push({ terms: [term], actions });
  }
  return writes;
}

/** The home's record with `written` tails in it; the record's other tails as it holds them. */
function withTails(home: string, state: Home, written: readonly (readonly [string, Tail])[]) {
  let own = state.own;
  const forms = { ...state.forms };
  for (const [term, tail] of written)
    if (term === home) own = ownFields(tailItem(home, tail));
    else forms[term] = formEntry(tail);
  return { own, forms };
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
  for (const { terms, actions } of homeWrites(store, planned)) {
    const v = (state.v ?? 0) + 1;
    const written = terms.flatMap((term) => {
      const tail = planned.get(term)?.next;
      return tail ? [[term, tail] as const] : [];
    });
    const { own, forms } = withTails(home, state, written);
    await send(store, [put(store, homeRecord(home, own, forms, v), state.v), ...actions], fence);
    Object.assign(state, { v, own, forms });
    for (const [term, tail] of written) state.tails.set(term, tail);
  }
}
