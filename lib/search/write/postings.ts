import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../concurrency.ts';
import { batchGet } from '../../dynamodb/batch-get.ts';
import { isConditionFailure, retryableCancellation } from '../../dynamodb/conditions.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import { retry } from '../../retry.ts';
import {
  BLOCK_CAPACITY,
  type BlockPosting,
  blockMax,
  type DirectoryEntry,
  decodeBlock,
  decodeDirectory,
  edit,
  encodeBlock,
  encodeDirectory,
  sealTail,
  splitInto,
  tailDirectoryLimit,
} from '../format/blocks.ts';
import {
  DF_CLASS_ATTRIBUTE,
  dictionaryEntry,
  endOfSealedSk,
  FORMS_ATTRIBUTE,
  formInHome,
  homeKey,
  homeOf,
  isDictionaryTerm,
  PAGE_IDS,
  pageEntry,
  pageSk,
  sealedSk,
  tailKey,
  termOfPk,
  termPk,
} from '../format/keys.ts';
import { isExactForm } from '../text/tokenizer.ts';

/** One posting: `term` occurs `tf` times in item `id`, of length `dl`. */
export interface Posting extends BlockPosting {
  term: string;
}

/**
 * How much shorter than its item the length a posting carries (its item's *norm*) is made when an edit rewrites
 * the item's postings: an eighth. A new item's postings carry its length. Every posting of an item carries at most
 * its norm, and the norm is at most the item's length, so a posting's score and every block bound computed from it
 * are upper bounds of what the item scores (BM25's saturation falls as the length grows; an item shorter than its
 * norm is in the shrunk set, keys.ts, whose length the reader scores it at), and an edit that keeps the norm keeps
 * every posting whose tf did not rise (indexer.ts `postingTarget`, `changes`). The reader scores its answers from
 * the items (query.ts `itemOf`). Lucene's norms are lossy too (one byte, about an eighth); these
 * err one way only. Not for new items: at 100,000 items, postings an eighth short on every item cost a query 1.4 ×
 * the read units (BENCHMARKS.md, "Norms").
 */
export const LENGTH_SLACK = 1 / 8;

/**
 * The norm an edit that rewrites an item of length `dl` gives its postings: `dl` less its slack, rounded down, and
 * at least 1 (a block's lengths are positive: blocks.ts).
 */
export const normOf = (dl: number, slack = LENGTH_SLACK): number =>
  Math.min(dl, Math.max(1, dl - Math.ceil(dl * slack)));

/** The postings of an indexed state, by term: each carries the state's norm as its length. */
export function postingsOf(
  id: number,
  indexed: { norm: number; terms: Record<string, number> },
): Map<string, Posting> {
  return new Map(
    Object.entries(indexed.terms).map(([term, tf]) => [term, { term, id, tf, dl: indexed.norm }]),
  );
}

/** A term's tail (keys.ts): its newest postings, its df, and where its sealed blocks end. */
export interface Tail {
  postings: BlockPosting[];
  /** Every posting of the term, sealed or not. */
  df: number;
  /** The last sealed block's end (0: none); the tail holds the ids above it. */
  lo: number;
  /** An upper bound of the tail's impacts. */
  m: number;
  /** Incremented by every write of the tail: each rewrite is a compare-and-swap on it. */
  v: number;
  /**
   * The term's directory (every sealed block's end and bound, in id order) while it has at most
   * `tailDirectoryLimit` sealed blocks ([] when none); undefined once it had more (docs/index-format.md): the
   * directory pages alone then. Always exactly what the pages hold when defined.
   */
  directory: DirectoryEntry[] | undefined;
}

/** A sealed block: every posting of its term with an id in (previous block's end, end]. */
export interface Sealed {
  end: number;
  postings: BlockPosting[];
  /** An upper bound of its impacts, as its directory entry holds it. */
  m: number;
  v: number;
}

/**
 * The stored form of a tail: a term of the dictionary with postings is in it, with its df class (keys.ts), an emptied
 * one leaves it; an exact form is never in it.
 */
export const tailItem = (term: string, tail: Tail) => ({
  ...tailKey(term),
  p: encodeBlock(tail.postings),
  df: tail.df,
  lo: tail.lo,
  m: tail.m,
  v: tail.v,
  ...(tail.directory?.length ? { d: encodeDirectory(tail.directory) } : {}),
  ...(tail.df > 0 && isDictionaryTerm(term) ? dictionaryEntry(term, tail.df) : {}),
});
/** The stored form of an exact form's tail in its home record (keys.ts `homeOf`): its tail's fields, but its key. */
export const formEntry = (tail: Tail) => ({
  p: encodeBlock(tail.postings),
  df: tail.df,
  lo: tail.lo,
  m: tail.m,
  ...(tail.directory?.length ? { d: encodeDirectory(tail.directory) } : {}),
});
/** A stem's own attributes in its home record: its tail's item but for the key and the home's version. */
export const ownFields = ({ pk: _pk, sk: _sk, v: _v, ...own }: Record<string, unknown>) => own;
/**
 * A home record (keys.ts `homeOf`) holding the tails `tails` (its stem's, under its own name, and its forms'), at
 * version `v`: what the writer puts, computed at once (the bulk loader and the write model build it).
 */
export function homeItem(home: string, tails: ReadonlyMap<string, Tail>, v: number) {
  const forms = Object.fromEntries(
    [...tails].filter(([term]) => term !== home).map(([term, tail]) => [term, formEntry(tail)]),
  );
  const stem = tails.get(home);
  return homeRecord(home, stem && ownFields(tailItem(home, stem)), forms, v);
}
/** A home record from its stem's own attributes (none while the stem has no tail) and its forms' stored entries. */
const homeRecord = (
  home: string,
  own: Record<string, unknown> | undefined,
  forms: Record<string, unknown>,
  v: number,
) => ({
  ...tailKey(home),
  ...own,
  v,
  ...(Object.keys(forms).length > 0 ? { [FORMS_ATTRIBUTE]: forms } : {}),
});
/** A tail's directory after `entries` set (a bound) or removed (undefined); undefined once it lists too many. */
export function relisted(
  listed: readonly DirectoryEntry[] | undefined,
  entries: ReadonlyMap<number, number | undefined> | readonly DirectoryEntry[],
  capacity: number,
): DirectoryEntry[] | undefined {
  if (listed === undefined) return undefined;
  const byEnd = new Map(listed);
  for (const [end, max] of entries)
    if (max === undefined) byEnd.delete(end);
    else byEnd.set(end, max);
  return byEnd.size <= tailDirectoryLimit(capacity) ? [...byEnd].sort((a, b) => a[0] - b[0]) : undefined;
}
export const sealedItem = (term: string, block: Sealed) => ({
  pk: termPk(term),
  sk: sealedSk(block.end),
  p: encodeBlock(block.postings),
  m: block.m,
  v: block.v,
});

/**
 * The records of a term whose postings are appended in id order from an empty index, whatever the batches: full
 * blocks sealed from the oldest (sealTail), the rest in the tail, each sealed block's maximum in its directory page.
 * What the writer produces for appends, computed at once (the benchmark's bulk loader writes it).
 */
export function appendedTerm(
  postings: readonly BlockPosting[],
  capacity = BLOCK_CAPACITY,
): { tail: Tail; sealed: Sealed[]; pages: Map<string, Record<string, number>> } {
  const { sealed, next } = planTail(undefined, { add: postings, remove: new Set() }, capacity);
  const pages = new Map<string, Record<string, number>>();
  for (const block of sealed) {
    const page = pages.get(pageSk(block.end)) ?? {};
    page[pageEntry(block.end)] = block.m;
    pages.set(pageSk(block.end), page);
  }
  // Its version as after one write per posting (items indexed one at a time).
  return { tail: { ...next, v: postings.length }, sealed, pages };
}

/**
 * The pure step of a tail write (the writer sends it, bench:write-model costs it): what `tail` (undefined: none yet)
 * becomes with `change`, and the full blocks it seals from its oldest postings (sealTail), with exact maxima.
 */
export function planTail(
  tail: Tail | undefined,
  change: { add: readonly BlockPosting[]; remove: ReadonlySet<number> },
  capacity = BLOCK_CAPACITY,
) {
  const result = edit(tail?.postings ?? [], change.add, change.remove);
  const chunks = sealTail(result.postings, capacity);
  const kept = chunks.pop() ?? [];
  const sealed: Sealed[] = chunks.map((chunk) => ({
    end: chunk.at(-1)?.id ?? 0,
    postings: chunk,
    m: blockMax(chunk),
    v: 1,
  }));
  const next: Tail = {
    postings: kept,
    df: (tail?.df ?? 0) + result.added - result.removed,
    lo: sealed.at(-1)?.end ?? tail?.lo ?? 0,
    // A bound that only rises while the tail keeps its postings; exact again when it seals.
    m: sealed.length > 0 ? blockMax(kept) : Math.max(tail?.m ?? 0, blockMax(kept)),
    v: (tail?.v ?? 0) + 1,
    directory: relisted(
      tail === undefined || tail.lo === 0 ? [] : tail.directory,
      sealed.map((block): DirectoryEntry => [block.end, block.m]),
      capacity,
    ),
  };
  return { result, sealed, next };
}

/** Actions per transaction (DynamoDB allows 100). */
const ACTIONS_PER_TRANSACTION = 100;

type Planned = ReturnType<typeof planTail>;

/**
 * A home record as a writer read it (keys.ts `homeOf`): its version (undefined while it does not exist), its stem's
 * own attributes (undefined while the stem has no tail) and its forms' entries as stored, and the tails of the terms
 * a batch changes that it holds.
 */
interface Home {
  v: number | undefined;
  own: Record<string, unknown> | undefined;
  forms: Record<string, unknown>;
  tails: Map<string, Tail>;
}

interface TermChange {
  add: BlockPosting[];
  remove: Set<number>;
}

/** Thrown inside the writer when a compare-and-swap lost to another writer: the term is read again and redone. */
class LostRace extends Error {}

export interface PostingChanges {
  add?: readonly Posting[];
  remove?: readonly Posting[];
}

export interface ApplyOptions {
  /** Called before every write; throws to stop the writer (the indexer's lease on its items is running out). */
  fence?: () => void;
}

type Action = Record<string, unknown>;

/**
 * Applies a batch of posting changes grouped by term, and the terms by home (keys.ts `homeOf`: a stem and its exact
 * forms). A term's postings are in id order (keys.ts): the ids above its tail's `lo` in the tail, the others in
 * sealed blocks. Each home is read once (its tails, and the sealed blocks the batch touches) and each record is
 * written once per batch:
 * - the tail parts (a new item's postings, mostly) are one conditional write of the home record, which carries each
 *   tail's df; a tail that fills seals its oldest postings into full blocks, with their directory entries, in one
 *   transaction with it (writeHome);
 * - the sealed part (an edit or a deletion of an older item) rewrites each touched block under a compare-and-swap
 *   on its version, with the df's change added to the tail and any directory entry that must rise, in one
 *   transaction (one conditional write when neither the df nor an entry changes: an edit that keeps its terms).
 * So df always equals the posting count, and a block's directory entry is never below its postings' impacts.
 *
 * Putting a posting already in place, or removing one already gone, changes nothing, so every call is idempotent and
 * safe to retry or to run concurrently with another: a write that lost a race re-reads its home and is redone.
 */
export function createPostingWriter({
  client,
  tableName,
  blockCapacity = BLOCK_CAPACITY,
  concurrency = 32,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Postings per block at most (tests use tiny blocks to exercise seals and splits); BLOCK_CAPACITY when undefined. */
  blockCapacity?: number | undefined;
  /** Terms written at once. */
  concurrency?: number;
}) {
  const number = (value: unknown, what: string): number => {
    if (typeof value !== 'number') throw new Error(`Malformed index record: ${what}`);
    return value;
  };
  const parseTail = (item: Record<string, unknown>): Tail => {
    const lo = number(item.lo, 'tail lo');
    return {
      postings: decodeBlock(item.p),
      df: number(item.df, 'tail df'),
      lo,
      m: number(item.m, 'tail m'),
      v: number(item.v, 'tail v'),
      directory: lo === 0 ? [] : item.d instanceof Uint8Array ? decodeDirectory(item.d) : undefined,
    };
  };
  const parseSealed = (item: Record<string, unknown>): Sealed => ({
    end: endOfSealedSk(item.sk) ?? 0,
    postings: decodeBlock(item.p),
    m: number(item.m, 'block m'),
    v: number(item.v, 'block v'),
  });

  /** The home records of `homes` (each with the terms of it a batch changes), read consistently (100 keys a call). */
  async function readHomes(homes: ReadonlyMap<string, readonly string[]>): Promise<Map<string, Home>> {
    const rows = await batchGet(client, tableName, [...homes.keys()].map(tailKey), {
      consistent: true,
      concurrency: 4,
    });
    const found = new Map(rows.map((row) => [termOfPk(row.pk) ?? '', row]));
    const read = new Map<string, Home>();
    for (const [home, terms] of homes) {
      const row = found.get(home);
      const { pk: _pk, sk: _sk, v: _v, [FORMS_ATTRIBUTE]: forms, ...own } = row ?? {};
      const state: Home = {
        v: row ? number(row.v, 'tail v') : undefined,
        own: row && own.df !== undefined ? own : undefined,
        forms: forms && typeof forms === 'object' ? { ...(forms as Record<string, unknown>) } : {},
        tails: new Map(),
      };
      if (row && state.own) state.tails.set(home, parseTail(row));
      for (const term of terms) {
        if (term === home) continue;
        const entry = formInHome(row, term);
        if (entry) state.tails.set(term, parseTail(entry));
      }
      read.set(home, state);
    }
    return read;
  }

  /** The sealed blocks covering `ids` (sorted, all at or below the tail's `lo`), read consistently. */
  async function covering(term: string, ids: readonly number[], lo: number): Promise<Sealed[]> {
    const first = ids[0];
    if (first === undefined) return [];
    const read = async (from: number, limit: number | undefined) => {
      const input = {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': termPk(term), ':from': sealedSk(from), ':to': sealedSk(lo) },
        ConsistentRead: true,
      };
      const items = limit
        ? ((await client.send(new QueryCommand({ ...input, Limit: limit }))).Items ?? [])
        : await queryAll(client, input);
      return items.map(parseSealed);
    };
    // Many ids for the range: one read of the range; else one block per id. Any block that changed between these
    // reads fails its compare-and-swap, and the term is read again.
    const found =
      ids.length * blockCapacity >= ((ids.at(-1) ?? first) - first) / 2
        ? await read(first, undefined)
        : (await Promise.all(ids.map((id) => read(id, 1)))).flat();
    const byEnd = new Map<number, Sealed>();
    for (const block of found) {
      if ((byEnd.get(block.end)?.v ?? block.v) !== block.v) throw new LostRace();
      byEnd.set(block.end, block);
    }
    return [...byEnd.values()].sort((a, b) => a.end - b.end);
  }

  /** Sends one write alone or several in a transaction; a lost compare-and-swap or conflict is a LostRace. */
  async function send(actions: Action[], fence: () => void): Promise<void> {
    fence();
    try {
      const [only] = actions;
      if (actions.length === 1 && only && 'Put' in only)
        await client.send(new PutCommand(only.Put as ConstructorParameters<typeof PutCommand>[0]));
      else await client.send(new TransactWriteCommand({ TransactItems: actions as never[] }));
    } catch (error) {
      if (isConditionFailure(error) || retryableCancellation(error)) throw new LostRace();
      throw error;
    }
  }

  const put = (item: Record<string, unknown>, version: number | undefined): Action => ({
    Put: {
      TableName: tableName,
      Item: item,
      ...(version === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': version } }),
    },
  });
  /** Directory entries set (a maximum) or removed (undefined), one update a page. */
  const pageUpdates = (term: string, entries: Map<number, number | undefined>): Action[] =>
    [...Map.groupBy(entries, ([end]) => Math.floor(end / PAGE_IDS)).values()].map((group) => {
      const names: Record<string, string> = {};
      const values: Record<string, number> = {};
      const set: string[] = [];
      const remove: string[] = [];
      group.forEach(([end, max], i) => {
        names[`#e${i}`] = pageEntry(end);
        if (max === undefined) remove.push(`#e${i}`);
        else {
          values[`:e${i}`] = max;
          set.push(`#e${i} = :e${i}`);
        }
      });
      return {
        Update: {
          TableName: tableName,
          Key: { pk: termPk(term), sk: pageSk(group[0]?.[0] ?? 0) },
          UpdateExpression: [
            set.length ? `SET ${set.join(', ')}` : '',
            remove.length ? `REMOVE ${remove.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join(' '),
          ExpressionAttributeNames: names,
          ...(set.length ? { ExpressionAttributeValues: values } : {}),
        },
      };
    });

  /**
   * The tail parts of a home's terms (ids above each tail's `lo`) in one conditional write of the home record, a
   * transaction when a tail seals blocks: the tails planned (`planned`) are written into the record, which keeps every
   * other tail it holds as it is. A home whose writes exceed a transaction's actions is written in several, one after
   * another, each under the version the last one left.
   */
  async function writeHome(home: string, state: Home, planned: Map<string, Planned>, fence: () => void) {
    const extras = (term: string): Action[] => {
      const sealed = planned.get(term)?.sealed ?? [];
      return [
        ...sealed.map((block) => put(sealedItem(term, block), undefined)),
        ...pageUpdates(term, new Map(sealed.map((block) => [block.end, block.m]))),
      ];
    };
    const chunks: { terms: string[]; actions: Action[] }[] = [];
    for (const term of planned.keys()) {
      const actions = extras(term);
      const open = chunks.at(-1);
      if (open && 1 + open.actions.length + actions.length <= ACTIONS_PER_TRANSACTION) {
        open.terms.push(term);
        open.actions.push(...actions);
      } else chunks.push({ terms: [term], actions });
    }
    for (const { terms, actions } of chunks) {
      const v = (state.v ?? 0) + 1;
      // The chunk's tails as planned; the record's other tails as it holds them.
      const written = terms.flatMap((term) => {
        const tail = planned.get(term)?.next;
        return tail ? [[term, tail] as const] : [];
      });
      let own = state.own;
      const forms = { ...state.forms };
      for (const [term, tail] of written)
        if (term === home) own = ownFields(tailItem(home, tail));
        else forms[term] = formEntry(tail);
      await send([put(homeRecord(home, own, forms, v), state.v), ...actions], fence);
      Object.assign(state, { v, own, forms });
      for (const [term, tail] of written) state.tails.set(term, tail);
    }
  }

  /** The sealed part: ids at or below `lo`, each touched block rewritten once (see above). */
  async function applySealed(term: string, change: TermChange, tail: Tail, v0: number, fence: () => void) {
    const { lo } = tail;
    const ids = [...new Set([...change.add.map((p) => p.id), ...change.remove])].sort((a, b) => a - b);
    const blocks = await covering(term, ids, lo);
    const blockOf = (id: number) => blocks.find((block) => block.end >= id);
    // Every id at or below lo has a block (the one ending at lo is kept even when empty): a read that found none
    // raced a writer, and is done again.
    if (ids.some((id) => !blockOf(id))) throw new LostRace();
    let added = 0;
    let removed = 0;
    const writes: { actions: Action[]; entries: Map<number, number | undefined>; delta: number }[] = [];
    for (const block of blocks) {
      const result = edit(
        block.postings,
        change.add.filter((p) => blockOf(p.id) === block),
        new Set([...change.remove].filter((id) => blockOf(id) === block)),
      );
      if (!result.changed) continue;
      added += result.added;
      removed += result.removed;
      const entries = new Map<number, number | undefined>();
      const actions: Action[] = [];
      // An emptied block goes, but for the one ending at lo: it covers the ids up to lo that the tail does not.
      if (result.postings.length === 0 && block.end !== lo) {
        actions.push({
          Delete: {
            TableName: tableName,
            Key: { pk: termPk(term), sk: sealedSk(block.end) },
            ConditionExpression: 'v = :v',
            ExpressionAttributeValues: { ':v': block.v },
          },
        });
        entries.set(block.end, undefined);
      } else {
        const chunks = splitInto(result.postings, blockCapacity);
        const upper = chunks.pop() ?? [];
        // The block's bound only rises (a lower one would cost a directory write for no reader's gain), but for a
        // split, whose blocks all get exact maxima.
        const m = chunks.length > 0 ? blockMax(upper) : Math.max(block.m, blockMax(upper));
        actions.push(put(sealedItem(term, { ...block, postings: upper, m, v: block.v + 1 }), block.v));
        if (m !== block.m) entries.set(block.end, m);
        for (const chunk of chunks) {
          const end = chunk.at(-1)?.id ?? 0;
          const lower = { end, postings: chunk, m: blockMax(chunk), v: 1 };
          actions.push(put(sealedItem(term, lower), undefined));
          entries.set(end, lower.m);
        }
      }
      writes.push({ actions, entries, delta: result.added - result.removed });
    }
    // Blocks go together into transactions of up to 100 actions, each with its own directory entries and df change,
    // so every transaction leaves df equal to the posting count.
    const transactions: (typeof writes)[number][] = [];
    for (const write of writes) {
      const open = transactions.at(-1);
      const size = (w: (typeof writes)[number]) => w.actions.length + w.entries.size + 1;
      if (open && size(open) + size(write) <= ACTIONS_PER_TRANSACTION) {
        open.actions.push(...write.actions);
        for (const [end, m] of write.entries) open.entries.set(end, m);
        open.delta += write.delta;
      } else transactions.push({ ...write, entries: new Map(write.entries) });
    }
    let { directory } = tail;
    let v = v0;
    for (const { actions, entries, delta } of transactions) {
      // A tail that lists the directory lists its change too, under a compare-and-swap on its version.
      const relist = directory !== undefined && entries.size > 0;
      const next = relist ? relisted(directory, entries, blockCapacity) : directory;
      await send(
        [...actions, ...pageUpdates(term, entries), ...tailUpdate(term, delta, relist, next, v)],
        fence,
      );
      if (delta !== 0 || relist) v++;
      directory = next;
    }
    return { added, removed, v };
  }

  /**
   * The tail's share of a sealed part's transaction: the df's change and, where it lists the directory, the new
   * list, in the term's home record (a stem's own attributes, a form's entry in FORMS_ATTRIBUTE). Any write of the
   * home moves its version, so a writer that read it before loses its swap. The new df is not known here: a stem's
   * class in the dictionary is removed (a reader reads the df), and the tail's next write puts it back (keys.ts).
   */
  function tailUpdate(
    term: string,
    delta: number,
    relist: boolean,
    directory: DirectoryEntry[] | undefined,
    v: number,
  ): Action[] {
    if (delta === 0 && !relist) return [];
    const form = isExactForm(term);
    // A form's attributes are paths in its home's map (ADD takes top-level attributes only: its df is SET).
    const at = (name: string) => (form ? `#f.#t.${name}` : name);
    const set = [
      ...(form && delta !== 0 ? [`${at('df')} = ${at('df')} + :d`] : []),
      ...(relist && directory?.length ? [`${at('d')} = :dir`] : []),
    ];
    const add = ['v :one', ...(!form && delta !== 0 ? ['df :d'] : [])];
    const remove = [
      ...(!form && delta !== 0 ? [DF_CLASS_ATTRIBUTE] : []),
      ...(relist && !directory?.length ? [at('d')] : []),
    ];
    return [
      {
        Update: {
          TableName: tableName,
          Key: homeKey(term),
          UpdateExpression: [
            set.length ? `SET ${set.join(', ')}` : '',
            `ADD ${add.join(', ')}`,
            remove.length ? `REMOVE ${remove.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join(' '),
          ConditionExpression: relist ? 'v = :v' : form ? 'attribute_exists(#f.#t)' : 'attribute_exists(pk)',
          ...(form ? { ExpressionAttributeNames: { '#f': FORMS_ATTRIBUTE, '#t': term } } : {}),
          ExpressionAttributeValues: {
            ':one': 1,
            ...(delta === 0 ? {} : { ':d': delta }),
            ...(relist && directory?.length ? { ':dir': encodeDirectory(directory) } : {}),
            ...(relist ? { ':v': v } : {}),
          },
        },
      },
    ];
  }

  /**
   * A home's changes: the tail parts of its terms in one write of the home record (writeHome); then each term's sealed
   * part (applySealed), under the home's version as each write leaves it.
   */
  async function applyHome(
    home: string,
    changes: ReadonlyMap<string, TermChange>,
    state: Home,
    fence: () => void,
  ) {
    const planned = new Map<string, Planned>();
    const sealedParts = new Map<string, TermChange>();
    let [added, removed] = [0, 0];
    for (const [term, change] of changes) {
      const tail = state.tails.get(term);
      const above = (id: number) => id > (tail?.lo ?? 0);
      const tailPart = {
        add: change.add.filter((p) => above(p.id)),
        remove: new Set([...change.remove].filter(above)),
      };
      const sealedPart = {
        add: change.add.filter((p) => !above(p.id)),
        remove: new Set([...change.remove].filter((id) => !above(id))),
      };
      if (tailPart.add.length + tailPart.remove.size > 0) {
        const plan = planTail(tail, tailPart, blockCapacity);
        added += plan.result.added;
        removed += plan.result.removed;
        if (plan.result.changed) planned.set(term, plan);
      }
      if (sealedPart.add.length + sealedPart.remove.size > 0) sealedParts.set(term, sealedPart);
    }
    if (planned.size > 0) await writeHome(home, state, planned, fence);
    for (const [term, change] of sealedParts) {
      const tail = state.tails.get(term);
      // Ids at or below lo exist only where a tail does (lo > 0).
      if (!tail || state.v === undefined) continue;
      const result = await applySealed(term, change, tail, state.v, fence);
      added += result.added;
      removed += result.removed;
      state.v = result.v;
    }
    return { added, removed };
  }

  async function apply(changes: PostingChanges, { fence = () => {} }: ApplyOptions = {}) {
    const byTerm = new Map<string, TermChange>();
    const changeOf = (term: string) => {
      const change = byTerm.get(term) ?? { add: [], remove: new Set<number>() };
      byTerm.set(term, change);
      return change;
    };
    for (const { term, id, tf, dl } of changes.add ?? []) changeOf(term).add.push({ id, tf, dl });
    for (const { term, id } of changes.remove ?? []) changeOf(term).remove.add(id);
    const byHome = Map.groupBy(byTerm.keys(), homeOf);
    const homes = await readHomes(byHome);
    const results = await mapLimit([...byHome], concurrency, async ([home, terms]) => {
      const homeChanges = new Map(terms.map((term) => [term, byTerm.get(term) as TermChange]));
      let state = homes.get(home) as Home;
      return retry(
        async () => {
          try {
            return await applyHome(home, homeChanges, state, fence);
          } catch (error) {
            if (error instanceof LostRace)
              state = (await readHomes(new Map([[home, terms]]))).get(home) as Home;
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
    });
    return {
      added: results.reduce((sum, r) => sum + r.added, 0),
      removed: results.reduce((sum, r) => sum + r.removed, 0),
    };
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
