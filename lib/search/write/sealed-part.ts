import { TRANSACTION_ACTIONS } from '../../dynamodb/write-groups.ts';
import {
  type BlockPosting,
  blockMax,
  type DirectoryEntry,
  edit,
  encodeDirectory,
  splitInto,
} from '../format/blocks.ts';
import { blockKey, DF_CLASS_ATTRIBUTE, dictionaryEntry, FORMS_ATTRIBUTE, homeKey } from '../format/keys.ts';
import { isExactForm } from '../text/tokenizer.ts';
import { covering } from './home-read.ts';
import { relisted } from './tail-plan.ts';
import { type Sealed, sealedItem, type Tail } from './term-records.ts';
import { type Action, type Guards, LostRace, pageUpdates, put, send, type TermStore } from './term-store.ts';

/** A term's postings to put and ids to remove. */
export interface TermChange {
  add: BlockPosting[];
  remove: Set<number>;
}

/** Writes of one or more sealed blocks: their actions, their directory entries' changes, and the df's change. */
interface BlockWrite {
  actions: Action[];
  entries: Map<number, number | undefined>;
  delta: number;
}

/**
 * A block's rewrite with `postings`: an emptied block goes, but for the one ending at `lo` (it covers the ids up to
 * lo that the tail does not); a full one splits, its lower blocks with exact maxima.
 */
function rewriteBlock(store: TermStore, term: string, block: Sealed, postings: BlockPosting[], lo: number) {
  const entries = new Map<number, number | undefined>();
  const actions: Action[] = [];
  if (postings.length === 0 && block.end !== lo) {
    actions.push({
      Delete: {
        TableName: store.tableName,
        Key: blockKey(term, block.end),
        ConditionExpression: 'v = :v',
        ExpressionAttributeValues: { ':v': block.v },
      },
    });
    entries.set(block.end, undefined);
    return { actions, entries };
  }
  const chunks = splitInto(postings, store.blockCapacity);
  const upper = chunks.pop() ?? [];
  // The block's bound only rises (a lower one would cost a directory write for no reader's gain), but for a split,
  // whose blocks all get exact maxima.
  const m = chunks.length > 0 ? blockMax(upper) : Math.max(block.m, blockMax(upper));
  actions.push(put(store, sealedItem(term, { ...block, postings: upper, m, v: block.v + 1 }), block.v));
  if (m !== block.m) entries.set(block.end, m);
  for (const chunk of chunks) {
    const lower = { end: chunk.at(-1)?.id ?? 0, postings: chunk, m: blockMax(chunk), v: 1 };
    actions.push(put(store, sealedItem(term, lower), undefined));
    entries.set(lower.end, lower.m);
  }
  return { actions, entries };
}

/** The rewrites of the blocks `change` touches, each once, and how many postings they add and remove. */
function blockWrites(store: TermStore, term: string, change: TermChange, blocks: Sealed[], lo: number) {
  const blockOf = (id: number) => blocks.find((block) => block.end >= id);
  const tally = { added: 0, removed: 0 };
  const writes: BlockWrite[] = [];
  for (const block of blocks) {
    const result = edit(
      block.postings,
      change.add.filter((p) => blockOf(p.id) === block),
      new Set([...change.remove].filter((id) => blockOf(id) === block)),
    );
    if (!result.changed) continue;
    tally.added += result.added;
    tally.removed += result.removed;
    const { actions, entries } = rewriteBlock(store, term, block, result.postings, lo);
    writes.push({ actions, entries, delta: result.added - result.removed });
  }
  return { ...tally, writes };
}

/**
 * Block writes together in transactions of up to 100 actions, each with its own directory entries and df change, so
 * every transaction leaves df equal to the posting count.
 */
function transactionsOf(writes: readonly BlockWrite[]): BlockWrite[] {
  const size = (w: BlockWrite) => w.actions.length + w.entries.size + 1;
  const transactions: BlockWrite[] = [];
  for (const write of writes) {
    const open = transactions.at(-1);
    if (open && size(open) + size(write) <= TRANSACTION_ACTIONS) {
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
  const blocks = await covering(store, term, ids, lo);
  // Every id at or below lo has a block (the one ending at lo is kept even when empty): a read that found none
  // raced a writer, and is done again.
  if (ids.some((id) => !blocks.some((block) => block.end >= id))) throw new LostRace();
  const { added, removed, writes } = blockWrites(store, term, change, blocks, lo);
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
