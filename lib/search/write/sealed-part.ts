import { TRANSACTION_ACTIONS } from '../../dynamodb/write-groups.ts';
import { type DirectoryEntry, encodeDirectory } from '../format/blocks.ts';
import { DF_CLASS_ATTRIBUTE, dictionaryEntry, FORMS_ATTRIBUTE, homeKey } from '../format/keys.ts';
import { isExactForm } from '../text/tokenizer.ts';
import {
  type BlockWrite,
  blockWrites,
  editsOf,
  emptiedRuns,
  sizeOf,
  type TermChange,
} from './block-writes.ts';
import { blockAbove, covering } from './home-read.ts';
import { relisted } from './tail-plan.ts';
import type { Sealed, Tail } from './term-records.ts';
import { type Action, type Guards, LostRace, pageUpdates, send, type TermStore } from './term-store.ts';

/**
 * Block writes together in transactions of up to 100 actions, each with its own directory entries and df change, so
 * every transaction leaves df equal to the posting count.
 */
function transactionsOf(writes: readonly BlockWrite[]): BlockWrite[] {
  const transactions: BlockWrite[] = [];
  for (const write of writes) {
    const open = transactions.at(-1);
    if (open && sizeOf(open) + sizeOf(write) <= TRANSACTION_ACTIONS) {
      open.actions.push(...write.actions);
      for (const [end, m] of write.entries) open.entries.set(end, m);
      open.delta += write.delta;
    } else transactions.push({ ...write, entries: new Map(write.entries) });
  }
  return transactions;
}

/**
 * The sealed part of a term's change (ids at or below its tail's `lo`): each touched block rewritten once under a
 * compare-and-swap on its version, with the df's change and any directory entry that moves, in transactions that
 * each carry their own. `v0` is the home's version; returns the version the last write left.
 */
export async function applySealed(
  store: TermStore,
  term: string,
  change: TermChange,
  tail: Tail,
  v0: number,
  { fence, rewrites }: Guards,
) {
  const { lo } = tail;
  const ids = [...new Set([...change.add.map((p) => p.id), ...change.remove])].sort((a, b) => a - b);
  const blocks = await covering(store, term, ids, tail);
  // Every id at or below lo has a block (the one ending at lo is kept even when empty), and a block covers the ids
  // (after, end]: a read that found none for an id, or one whose bound is at or above it, raced a split between the
  // moments it read two blocks (they are under several keys), and is done again.
  const coverOf = (id: number) => blocks.find((block) => block.end >= id);
  if (ids.some((id) => (coverOf(id)?.after ?? id) >= id)) throw new LostRace();
  const { added, removed, edits } = editsOf(change, blocks);
  const runs = emptiedRuns(edits, lo);
  const writes = blockWrites(store, term, edits, runs, await neighboursOf(store, term, runs, blocks, lo));
  let { directory } = tail;
  let v = v0;
  for (const { actions, entries, delta } of transactionsOf(writes)) {
    // A tail that lists the directory lists its change too, under a compare-and-swap on its version.
    const relist = directory !== undefined && entries.size > 0;
    const next = relist ? relisted(directory, entries, store.blockCapacity) : directory;
    const update = tailUpdate(store, term, { delta, relist, directory: next, v });
    if (actions.length > 0) rewrites();
    await send(store, [...actions, ...pageUpdates(store, term, entries), ...update], fence);
    if (delta !== 0 || relist) v++;
    directory = next;
  }
  return { added, removed, v };
}

/**
 * The block just above each emptied run (keyed by the run's top end), which takes over its ids: among the blocks read
 * (`blocks`), else read. One whose bound is not the run's top lost a race, and the term is read again.
 */
async function neighboursOf(
  store: TermStore,
  term: string,
  runs: readonly Sealed[][],
  blocks: readonly Sealed[],
  lo: number,
): Promise<Map<number, Sealed>> {
  const neighbours = new Map<number, Sealed>();
  for (const run of runs) {
    const top = run.at(-1)?.end ?? 0;
    const above = blocks.find((block) => block.after === top) ?? (await blockAbove(store, term, top, lo));
    if (above?.after !== top) throw new LostRace();
    neighbours.set(top, above);
  }
  return neighbours;
}

/**
 * The tail's share of a sealed part's transaction: the df's change and, where it lists the directory, the new list,
 * in the term's home record. The new df is not known here: a stem's df class is removed, and the tail's next write
 * puts it back (docs/index-format.md, the dictionary). A stem whose df rises is (again) in the dictionary: a tail
 * written at df 0 left it, and a sealed block that gains the term's only posting must put it back.
 */
function tailUpdate({ tableName }: TermStore, term: string, change: TailChange): Action[] {
  const { delta, relist, directory, v } = change;
  if (delta === 0 && !relist) return [];
  const form = isExactForm(term);
  const entry = !form && delta > 0 ? dictionaryKeys(term) : {};
  return [
    {
      Update: {
        TableName: tableName,
        Key: homeKey(term),
        UpdateExpression: tailExpression(form, change, Object.keys(entry)),
        ConditionExpression: relist ? 'v = :v' : form ? 'attribute_exists(#f.#t)' : 'attribute_exists(pk)',
        ...(form ? { ExpressionAttributeNames: { '#f': FORMS_ATTRIBUTE, '#t': term } } : {}),
        ExpressionAttributeValues: {
          ':one': 1,
          ...Object.fromEntries(Object.entries(entry).map(([name, value]) => [`:${name}`, value])),
          ...(delta === 0 ? {} : { ':d': delta }),
          ...(relist && directory?.length ? { ':dir': encodeDirectory(directory) } : {}),
          ...(relist ? { ':v': v } : {}),
        },
      },
    },
  ];
}

/** The tail's change in a sealed part's transaction: the df's, and where it lists the directory, the new list. */
interface TailChange {
  delta: number;
  relist: boolean;
  directory: DirectoryEntry[] | undefined;
  v: number;
}

/** A form's attributes are paths in its home's map (ADD takes top-level attributes only: its df is SET). */
const attribute = (form: boolean, name: string) => (form ? `#f.#t.${name}` : name);

/** A stem's dictionary attributes that its df does not decide (all but the df class). */
function dictionaryKeys(term: string): Record<string, string> {
  const { [DF_CLASS_ATTRIBUTE]: _class, ...keys } = dictionaryEntry(term, 1);
  return keys;
}

/** The UpdateExpression of `tailUpdate`: SET, ADD and REMOVE clauses, the empty ones left out. */
function tailExpression(form: boolean, { delta, relist, directory }: TailChange, entry: string[]): string {
  const dfChanges = delta !== 0;
  const set = [
    ...entry.map((name) => `${name} = :${name}`),
    ...(form && dfChanges ? [`${attribute(form, 'df')} = ${attribute(form, 'df')} + :d`] : []),
    ...(relist && directory?.length ? [`${attribute(form, 'd')} = :dir`] : []),
  ];
  const add = ['v :one', ...(!form && dfChanges ? ['df :d'] : [])];
  const remove = [
    ...(!form && dfChanges ? [DF_CLASS_ATTRIBUTE] : []),
    ...(relist && !directory?.length ? [attribute(form, 'd')] : []),
  ];
  const expression = [
    set.length ? `SET ${set.join(', ')}` : '',
    `ADD ${add.join(', ')}`,
    remove.length ? `REMOVE ${remove.join(', ')}` : '',
  ];
  return expression.filter(Boolean).join(' ');
}
