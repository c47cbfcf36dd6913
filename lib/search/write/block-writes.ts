// The writes that apply a term's change to its sealed blocks (sealed-part.ts sends them). A sealed block covers the
// ids (after, end] and stores its `after`, so every write here keeps the blocks a partition of the ids up to the
// tail's lo in each transaction: a split writes its blocks' bounds, and a block that empties goes in one transaction
// with its upper neighbour taking over its ids.
import { TRANSACTION_ACTIONS } from '../../dynamodb/write-groups.ts';
import { type BlockPosting, blockMax, edit, splitInto } from '../format/blocks.ts';
import { sealedKey } from '../format/keys.ts';
import { type Sealed, sealedItem } from './term-records.ts';
import { type Action, put, type TermStore } from './term-store.ts';

/** A term's postings to put and ids to remove. */
export interface TermChange {
  add: BlockPosting[];
  remove: Set<number>;
}

/** Writes of one or more sealed blocks: their actions, their directory entries' changes, and the df's change. */
export interface BlockWrite {
  actions: Action[];
  entries: Map<number, number | undefined>;
  delta: number;
}

/** A block the change touches, with its postings after it. */
interface Edited {
  block: Sealed;
  postings: BlockPosting[];
  delta: number;
}

/** The blocks `change` touches (each once: the block that covers each id), with their postings after it. */
export function editsOf(change: TermChange, blocks: readonly Sealed[]) {
  const blockOf = (id: number) => blocks.find((block) => block.end >= id);
  const tally = { added: 0, removed: 0 };
  const edits = new Map<number, Edited>();
  for (const block of blocks) {
    const result = edit(
      block.postings,
      change.add.filter((p) => blockOf(p.id) === block),
      new Set([...change.remove].filter((id) => blockOf(id) === block)),
    );
    if (!result.changed) continue;
    tally.added += result.added;
    tally.removed += result.removed;
    edits.set(block.end, { block, postings: result.postings, delta: result.added - result.removed });
  }
  return { ...tally, edits };
}

/**
 * The runs of blocks the change empties, each a run of neighbours, lowest first. The block ending at `lo` never goes
 * (it covers the ids up to lo that the tail does not), so every run has a neighbour above it.
 */
export function emptiedRuns(edits: ReadonlyMap<number, Edited>, lo: number): Sealed[][] {
  const runs: Sealed[][] = [];
  const emptied = [...edits.values()].filter(
    ({ block, postings }) => postings.length === 0 && block.end !== lo,
  );
  for (const { block } of emptied.sort((a, b) => a.block.end - b.block.end)) {
    const run = runs.at(-1);
    if (run && run.at(-1)?.end === block.after) run.push(block);
    else runs.push([block]);
  }
  return runs;
}

/** The writes of `edits`: each touched block's, and each emptied run's with its neighbour above (`neighbours`). */
export function blockWrites(
  store: TermStore,
  term: string,
  edits: ReadonlyMap<number, Edited>,
  runs: readonly Sealed[][],
  neighbours: ReadonlyMap<number, Sealed>,
): BlockWrite[] {
  const inRuns = new Set(runs.flat().map((block) => block.end));
  const taking = new Set([...neighbours.values()].map((block) => block.end));
  const writes: BlockWrite[] = [];
  for (const { block, postings, delta } of edits.values())
    if (!inRuns.has(block.end) && !taking.has(block.end)) {
      const { actions, entries } = rewriteBlock(store, term, block, postings);
      writes.push({ actions, entries, delta });
    }
  for (const run of runs) {
    const top = run.at(-1) as Sealed;
    const neighbour = neighbours.get(top.end) as Sealed;
    writes.push(...runWrites(store, term, run, edits, neighbour));
  }
  return writes;
}

/**
 * A block's rewrite with `postings` (at least one, or the block at lo): a full one splits, its lower blocks with
 * exact maxima, each after the one below it. `lowest` is the block it leaves lowest: the one an emptied run below it
 * hands its ids to.
 */
function rewriteBlock(store: TermStore, term: string, block: Sealed, postings: BlockPosting[]) {
  const entries = new Map<number, number | undefined>();
  const actions: Action[] = [];
  const chunks = splitInto(postings, store.blockCapacity);
  const upper = chunks.pop() ?? [];
  const lowers: Sealed[] = [];
  for (const chunk of chunks) {
    const after = lowers.at(-1)?.end ?? block.after;
    lowers.push({ after, end: chunk.at(-1)?.id ?? 0, postings: chunk, m: blockMax(chunk), v: 1 });
  }
  for (const lower of lowers) {
    actions.push(put(store, sealedItem(term, lower), undefined));
    entries.set(lower.end, lower.m);
  }
  // The block's bound only rises (a lower one would cost a directory write for no reader's gain), but for a split,
  // whose blocks all get exact maxima.
  const m = lowers.length > 0 ? blockMax(upper) : Math.max(block.m, blockMax(upper));
  const rewritten = {
    ...block,
    after: lowers.at(-1)?.end ?? block.after,
    postings: upper,
    m,
    v: block.v + 1,
  };
  actions.push(put(store, sealedItem(term, rewritten), block.v));
  if (m !== block.m) entries.set(block.end, m);
  return { actions, entries, lowest: lowers[0] ?? rewritten };
}

/** The actions a write takes in a transaction, as transactionsOf counts them: its own, its entries', the tail's. */
export const sizeOf = (write: BlockWrite) => write.actions.length + write.entries.size + 1;

/**
 * An emptied run's writes: its blocks deleted (each under a compare-and-swap on its version) with the neighbour above
 * taking over their ids, in one transaction, or in several from the top down when one cannot hold them all (each
 * delete takes an action and a directory entry), so each leaves the blocks a partition. The neighbour's own change,
 * if the change touches it, goes in the first.
 */
function runWrites(
  store: TermStore,
  term: string,
  run: readonly Sealed[],
  edits: ReadonlyMap<number, Edited>,
  neighbour: Sealed,
): BlockWrite[] {
  const writes: BlockWrite[] = [];
  const own = edits.get(neighbour.end);
  let above: { block: Sealed; change: Edited | undefined } = { block: neighbour, change: own };
  let left = [...run];
  while (left.length > 0) {
    const room = Math.floor((TRANSACTION_ACTIONS - sizeOf(takeOver(store, term, above, 0).write)) / 2);
    const chunk = left.slice(-Math.max(1, room));
    left = left.slice(0, left.length - chunk.length);
    const { write, lowest } = takeOver(store, term, above, chunk[0]?.after ?? 0);
    for (const block of chunk) {
      write.actions.push(deleteBlock(store, term, block));
      write.entries.set(block.end, undefined);
      write.delta += edits.get(block.end)?.delta ?? 0;
    }
    writes.push(write);
    above = { block: lowest, change: undefined };
  }
  return writes;
}

/**
 * The write of the block above an emptied run as it takes over the run's ids (`after` its new bound): its rewrite
 * when the change touches it, else its new bound alone, under a compare-and-swap on its version. `lowest` is the
 * block then lowest above the rest of the run.
 */
function takeOver(
  store: TermStore,
  term: string,
  { block, change }: { block: Sealed; change: Edited | undefined },
  after: number,
): { write: BlockWrite; lowest: Sealed } {
  if (change) {
    const { lowest, ...write } = rewriteBlock(store, term, { ...block, after }, change.postings);
    return { write: { ...write, delta: change.delta }, lowest };
  }
  const update = {
    Update: {
      TableName: store.tableName,
      Key: sealedKey(term, block.end),
      UpdateExpression: 'SET a = :a ADD v :one',
      ConditionExpression: 'v = :v',
      ExpressionAttributeValues: { ':a': after, ':one': 1, ':v': block.v },
    },
  };
  return {
    write: { actions: [update], entries: new Map(), delta: 0 },
    lowest: { ...block, after, v: block.v + 1 },
  };
}

const deleteBlock = ({ tableName }: TermStore, term: string, block: Sealed): Action => ({
  Delete: {
    TableName: tableName,
    Key: sealedKey(term, block.end),
    ConditionExpression: 'v = :v',
    ExpressionAttributeValues: { ':v': block.v },
  },
});
