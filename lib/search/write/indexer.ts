import { randomUUID } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { mapLimit } from '../../concurrency.ts';
import { batchGet } from '../../dynamodb/batch-get.ts';
import {
  actionsCancelledFor,
  cancelledFor,
  isCancelled,
  isConditionFailure,
} from '../../dynamodb/conditions.ts';
import { queryAll } from '../../dynamodb/query-all.ts';
import { ItemNotFoundError } from '../../items/errors.ts';
import type { ItemRepository } from '../../items/repository.ts';
import type { Item } from '../../items/schema.ts';
import { logger } from '../../observability.ts';
import { type RetryPolicy, retry } from '../../retry.ts';
import { termFrequencies } from '../format/bm25.ts';
import {
  docKey,
  idOfDocKey,
  STATS_SHARDS,
  shrunkBytes,
  shrunkEntry,
  shrunkKey,
  shrunkOf,
  shrunkQuery,
  statsKey,
} from '../format/keys.ts';
import { packTerms, StoredChange, StoredTerms, termsChange, withChange } from '../format/terms.ts';
import { indexTerms, itemText } from '../text/tokenizer.ts';
import { createPostingWriter, normOf, type Posting, postingsOf } from './postings.ts';

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
 * `pending` lists the targets of a rebuild that started and did not commit: their postings may exist. While a
 * writer works on an item it holds the item's lease (`leaseOwner` until `leaseUntil`, epoch ms).
 */
const DocSchema = v.pipe(
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
type Indexed = v.InferOutput<typeof Indexed>;
type Doc = v.InferOutput<typeof DocSchema>;

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

/**
 * What an item contributes to the index: its version, length (its words) and term frequencies, its words' exact
 * forms beside their stems (tokenizer.ts, step 7); its norm is its length, as a new item's postings carry it.
 */
export function analyze(item: Item): Indexed {
  const { tokens, dl } = indexTerms(itemText(item));
  return { version: item.version, dl, norm: dl, terms: Object.fromEntries(termFrequencies(tokens)), cut: {} };
}

/**
 * The state a rebuild from `committed` writes for `target` (what `analyze` gives now): its postings' norm
 * (postings.ts `LENGTH_SLACK`) and tfs, and its cut. A new item's postings carry its length and tfs, so they score
 * exactly. An edit keeps the committed norm while the item's new length is at most twice it, and keeps every posting
 * it would lower: a term whose tf rose (or that is new) is written with its tf, and one whose tf fell (or that the item
 * no longer holds) keeps its posting, the item's tf in the cut (keys.ts, the shrunk set). An item shorter than its
 * norm, or with a cut, is *shrunk*: its commit puts it in the shrunk set, whose lengths and tfs the reader scores its
 * postings at. A compaction (`renorm`), an edit past twice the norm, and one whose cut would hold more than twice the
 * terms the item holds (its ghosts outgrowing it) rewrite the postings as they are now, the first two with the
 * length less the slack, so that it can shrink again by up to an eighth and keep them.
 */
export const postingTarget = (committed: Indexed, target: Indexed, renorm: boolean): Indexed => {
  if (Object.keys(committed.terms).length === 0 || Object.keys(target.terms).length === 0) return target;
  const kept = !renorm && committed.norm * 2 >= target.dl;
  if (!kept) return { ...target, norm: normOf(target.dl) };
  const terms = { ...target.terms };
  for (const [term, tf] of Object.entries(committed.terms))
    if (!Object.hasOwn(terms, term) || (terms[term] ?? 0) < tf) terms[term] = tf;
  const cut = termsChange(terms, target.terms);
  const outgrown = Object.keys(cut).length > 2 * Object.keys(target.terms).length;
  return outgrown ? { ...target, norm: committed.norm } : { ...target, norm: committed.norm, terms, cut };
};
/**
 * Whether a state's postings carry more than the item: a length above its own, or a cut. Its item is in the shrunk
 * set once it is committed.
 */
export const isShrunk = (state: Indexed): boolean =>
  state.norm > state.dl || Object.keys(state.cut).length > 0;

/**
 * Whether a committed state is what `analyze` gives now: not after the analysis changed, so that `npm run reindex`
 * rewrites every item (how an index moves to a new format: docs/index-format.md).
 */
const sameAnalysis = (committed: Indexed, target: Indexed): boolean => {
  const terms = Object.entries(target.terms);
  const held = withChange(committed.terms, committed.cut);
  return (
    committed.dl === target.dl &&
    terms.length === Object.keys(held).length &&
    terms.every(([term, tf]) => held[term] === tf)
  );
};

/** `invalid`: the item's stored record (or its doc record) does not parse; retrying cannot fix it. */
export type IndexOutcome = 'unchanged' | 'indexed' | 'removed' | 'invalid';

export interface Indexer {
  /** Makes the index agree with the items' current state, as one batch (idempotent; safe to retry or run concurrently). */
  reindexItems(ids: readonly number[]): Promise<Map<number, IndexOutcome>>;
  /** One item as a batch of one. */
  reindexItem(id: number): Promise<IndexOutcome>;
  /**
   * Compacts the shrunk set (keys.ts) if it holds at least `atLeast` entries (the writer's `compactAt` unless
   * given) or its `compactBytes`: its items' postings rewritten as they are, with their lengths' norms, in one batch;
   * returns how many it took out.
   */
  compact(atLeast?: number): Promise<number>;
}

/**
 * Actions a commit transaction holds besides the corpus counts (DynamoDB allows 100): a doc record's, and its
 * shrunk-set entry's where it has one or had one.
 */
const ACTIONS_PER_COMMIT = 99;
/**
 * Entries the shrunk set holds before a writer that adds one compacts it (keys.ts; ~40 bytes an entry shrunk in its
 * length alone, ~100 with a shortening's cut, ~300 with a halving's), and the bytes it holds at most: every query
 * reads the whole set, DynamoDB charging the Query by its bytes (64 KB: 8 read units, eventually consistent). 64 KB
 * holds ~220 halvings of Cranfield items, whose compaction then costs ~22 WCU an item (~29 at 32 KB, ~100 items):
 * BENCHMARKS.md, "The shrunk set's cuts".
 */
export const COMPACT_AT = 256;
export const COMPACT_BYTES = 64 * 1024;
/**
 * A commit cancelled because docs were taken over goes again at once without them; one cancelled by a conflict
 * (another batch's counts, or a reader) is retried as it was, after the back-off.
 */
const COMMIT_RETRIES: RetryPolicy<void> = {
  attempts: 30,
  backoff: { baseMs: 20, maxMs: 500 },
  retryable: (error) =>
    isCancelled(error) && (cancelledFor(error, 'ConditionalCheckFailed') ? 'at once' : true),
};
/**
 * How long a writer holds the items it works on: longer than the stream consumer's 60 s timeout, so a consumer
 * that Lambda stops at its timeout has written its last posting before anyone takes its items over.
 */
const LEASE_MS = 90_000;
/** A writer's last write is sent at least this long before its lease ends (request time-outs and retries included). */
const FENCE_MS = 15_000;

const isDataError = (error: unknown) => error instanceof v.ValiError || error instanceof SyntaxError;

/** One indexing run's state across its passes. */
interface Run {
  outcomes: Map<number, IndexOutcome>;
  renorm: ReadonlySet<number>;
  shrank: boolean;
}

interface Plan {
  id: number;
  item: Item | undefined;
  committed: Indexed;
  target: Indexed;
  unfinished: Indexed[];
  /** The doc record's rev as this writer last wrote (or read) it. */
  rev: number;
}

/**
 * Maintains the BM25 index a batch at a time. Invariants: a term's df equals its number of postings (posting
 * writer), and the counts (STATS, summed over its parts) equal the sum over committed doc records (each commit transaction
 * carries its docs' counts to one part).
 * A writer first takes a lease on each item and records its target in the doc record as `pending` (write-ahead),
 * so a rebuild that dies half-way is rolled back and redone by the next one; only the lease holder writes an
 * item's postings, and it commits with a compare-and-swap on the doc record's `rev`. `pending` holds at most one
 * state: a writer that finds an unfinished rebuild first rolls its postings back to the committed state.
 */
export function createIndexer({
  client,
  tableName,
  items,
  blockCapacity,
  leaseMs = LEASE_MS,
  fenceMs = Math.min(FENCE_MS, leaseMs / 2),
  concurrency = 32,
  compactAt = COMPACT_AT,
  compactBytes = COMPACT_BYTES,
  now = Date.now,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  items: ItemRepository;
  /** Postings per index block (see blocks.ts); tests use tiny blocks. */
  blockCapacity?: number;
  /** How long a writer holds an item (tests of dead writers use short leases). */
  leaseMs?: number;
  fenceMs?: number;
  /** Requests in flight at once (doc records, terms). */
  concurrency?: number;
  /** The clock leases are read and written by (tests move it on to let a dead writer's lease run out). */
  now?: () => number;
  /** Shrunk-set entries at which a writer that adds one compacts the set (tests compact small sets). */
  compactAt?: number;
  /** The shrunk set's stored bytes at which a writer that adds an entry compacts it, whatever its entries. */
  compactBytes?: number;
}): Indexer {
  const writer = createPostingWriter({ client, tableName, blockCapacity, concurrency });

  /** The items, each parsed alone, so one record that does not parse fails only itself. */
  async function readItems(ids: number[]): Promise<Map<number, Item | 'invalid'>> {
    try {
      return await items.getMany(ids);
    } catch (error) {
      if (!isDataError(error)) throw error;
    }
    const found = new Map<number, Item | 'invalid'>();
    await mapLimit(ids, concurrency, async (id) => {
      const item = await items.get(id).catch((error) => {
        if (error instanceof ItemNotFoundError) return undefined;
        if (isDataError(error)) return 'invalid' as const;
        throw error;
      });
      if (item) found.set(id, item);
    });
    return found;
  }

  async function readDocs(ids: number[]): Promise<Map<number, Doc | 'invalid'>> {
    const records = await batchGet(client, tableName, ids.map(docKey), { consistent: true, concurrency: 4 });
    return new Map(
      records.map((record) => {
        const id = idOfDocKey(record.pk, record.sk) ?? 0;
        const parsed = v.safeParse(DocSchema, record);
        return [id, parsed.success ? parsed.output : 'invalid'];
      }),
    );
  }

  const revCondition = (rev: number) =>
    rev === 0
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': rev } };

  /** Writes a plan's doc record if its rev is still `plan.rev`; true when it did (and the plan's rev moved on). */
  async function writeDoc(plan: Plan, fields: Record<string, unknown>): Promise<boolean> {
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...docKey(plan.id), ...fields, rev: plan.rev + 1 },
          ...revCondition(plan.rev),
        }),
      );
      plan.rev++;
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  const postingList = (id: number, state: Indexed): Posting[] => [...postingsOf(id, state).values()];
  /** The postings of `state` that `other` does not have as they are (another tf or dl counts as another). */
  const without = (id: number, state: Indexed, other: Indexed): Posting[] => {
    const keep = postingsOf(id, other);
    return [...postingsOf(id, state)]
      .filter(([term, p]) => keep.get(term)?.tf !== p.tf || keep.get(term)?.dl !== p.dl)
      .map(([, p]) => p);
  };
  /**
   * The postings a rebuild from `committed` to `target` (its norm and tfs chosen by `postingTarget`) writes (`add`)
   * and takes out (`remove`). A target that keeps the committed norm keeps each posting whose tf is unchanged as it
   * is: its length is that norm (by induction: every posting written carries its state's norm). Where the norm is at most the item's length and the posting's tf the item's,
   * the posting's score, and every block maximum computed from it, is at most what the item now scores; where the
   * norm is above, or the tf (a cut), the item is in the shrunk set once committed, and the reader scores it at its
   * length and tfs and raises its blocks' bounds: upper bounds either way, as the reader's pruning needs, and the
   * reader scores its answers from the items themselves (query.ts `SearchRequest.itemOf`). An edit that keeps the
   * norm so writes the terms whose tf rose, not all of its terms (README, "Costs in DynamoDB units": *an edit*); a
   * compaction, or an edit past twice the norm, rewrites them all.
   */
  const changes = (id: number, committed: Indexed, target: Indexed) => {
    if (target.norm !== committed.norm)
      return { add: without(id, target, committed), remove: without(id, committed, target) };
    const changed = (state: Indexed, other: Indexed) => {
      const kept = postingsOf(id, other);
      return [...postingsOf(id, state).values()].filter((p) => kept.get(p.term)?.tf !== p.tf);
    };
    return { add: changed(target, committed), remove: changed(committed, target) };
  };

  /**
   * A plan's commit actions: its doc record's (written, or deleted with its item, under the rev), then its entry in
   * the shrunk set (keys.ts), put when its target is shrunk and deleted when its committed state was: so an entry
   * exists exactly while its doc record's norm exceeds its length.
   */
  function commitActions({ id, item, committed, target, rev }: Plan): Record<string, unknown>[] {
    const doc = item
      ? {
          Put: {
            TableName: tableName,
            Item: { ...docKey(id), ...stored(target), rev: rev + 1 },
            ...revCondition(rev),
          },
        }
      : { Delete: { TableName: tableName, Key: docKey(id), ...revCondition(rev) } };
    if (item && isShrunk(target))
      return [doc, { Put: { TableName: tableName, Item: { ...shrunkKey(id), ...shrunkEntry(target) } } }];
    return isShrunk(committed) ? [doc, { Delete: { TableName: tableName, Key: shrunkKey(id) } }] : [doc];
  }

  /**
   * The plans with their commit actions (each built once: a doc record's term map is compressed), in commits of at
   * most ACTIONS_PER_COMMIT actions besides the counts.
   */
  function commitsOf(plans: Plan[]): { plan: Plan; actions: Record<string, unknown>[] }[][] {
    const chunks: { plan: Plan; actions: Record<string, unknown>[] }[][] = [];
    let size = ACTIONS_PER_COMMIT;
    for (const plan of plans) {
      const actions = commitActions(plan);
      if (size + actions.length > ACTIONS_PER_COMMIT) {
        chunks.push([]);
        size = 0;
      }
      chunks.at(-1)?.push({ plan, actions });
      size += actions.length;
    }
    return chunks;
  }

  /**
   * Commits the plans' doc records (and shrunk-set entries) with their corpus counts, in transactions of at most 100
   * actions. A doc whose rev moved (a writer that took over a lease this one let run out) is left out and returned,
   * the rest committed without it.
   */
  async function commit(plans: Plan[]): Promise<Set<number>> {
    const lost = new Set<number>();
    for (let chunk of commitsOf(plans)) {
      await retry(async () => {
        if (chunk.length === 0) return;
        const docs = chunk.reduce(
          (sum, { plan: p }) => sum + (p.item ? 1 : 0) - (p.committed.version > 0 ? 1 : 0),
          0,
        );
        const len = chunk.reduce((sum, { plan: p }) => sum + p.target.dl - p.committed.dl, 0);
        const actions = chunk.flatMap((entry) => entry.actions);
        // The plan each action is of (a refused condition names an action: only a doc record's has one).
        const planOf = chunk.flatMap((entry) => entry.actions.map(() => entry.plan.id));
        const counts = {
          Update: {
            TableName: tableName,
            // One part of the counts, a new one each attempt (keys.ts): writers side by side seldom meet on it.
            Key: statsKey(Math.floor(Math.random() * STATS_SHARDS)),
            // `commits` counts every commit (how many batches landed: for operators and tests).
            UpdateExpression: 'ADD docs :docs, len :len, commits :one',
            ExpressionAttributeValues: { ':docs': docs, ':len': len, ':one': 1 },
          },
        };
        try {
          await client.send(new TransactWriteCommand({ TransactItems: [...actions, counts] as never[] }));
        } catch (error) {
          if (!isCancelled(error)) throw error;
          for (const i of actionsCancelledFor(error, 'ConditionalCheckFailed')) {
            const id = planOf[i];
            if (id !== undefined) lost.add(id);
          }
          chunk = chunk.filter((entry) => !lost.has(entry.plan.id));
          throw error;
        }
      }, COMMIT_RETRIES);
    }
    return lost;
  }

  /** Lets go of leases this writer still holds (after a failure), so the next attempt need not wait them out. */
  async function release(plans: Plan[], owner: string) {
    await mapLimit(plans, concurrency, (plan) =>
      client
        .send(
          new UpdateCommand({
            TableName: tableName,
            Key: docKey(plan.id),
            UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
            ConditionExpression: 'leaseOwner = :owner',
            ExpressionAttributeValues: { ':owner': owner },
          }),
        )
        .catch(() => {}),
    );
  }

  /**
   * One pass over `ids`; returns the ids to try again (held by another writer, or lost a race). `run.renorm`: ids
   * whose postings are rewritten with their length's norm if they are shrunk (a compaction); `run.shrank` is set when
   * a shrunk target commits.
   */
  async function pass(ids: number[], run: Run): Promise<number[]> {
    const { outcomes, renorm } = run;
    const owner = randomUUID();
    const leaseUntil = now() + leaseMs;
    const fence = () => {
      if (now() > leaseUntil - fenceMs) throw new Error('the index writer ran out of its lease');
    };
    const [found, docs] = await Promise.all([readItems(ids), readDocs(ids)]);
    const again: number[] = [];
    const plans: Plan[] = [];
    for (const id of ids) {
      const item = found.get(id);
      const doc = docs.get(id);
      if (item === 'invalid' || doc === 'invalid') {
        logger.error('item cannot be indexed: its stored record is invalid', { itemId: id });
        outcomes.set(id, 'invalid');
        continue;
      }
      const unfinished = doc?.pending ?? [];
      const target = item ? analyze(item) : EMPTY;
      const renormed = renorm.has(id) && doc !== undefined && isShrunk(doc);
      // An item indexed at its version is left, unless the analysis changed since (npm run reindex then rewrites it)
      // or a compaction renorms it.
      if (
        (!item && !doc) ||
        (item &&
          doc &&
          unfinished.length === 0 &&
          !renormed &&
          doc.version === item.version &&
          sameAnalysis(doc, target))
      ) {
        outcomes.set(id, 'unchanged');
        continue;
      }
      if (doc?.leaseOwner && (doc.leaseUntil ?? 0) > now()) {
        again.push(id);
        continue;
      }
      const committed: Indexed = doc ?? EMPTY;
      plans.push({
        id,
        item,
        committed,
        target: postingTarget(committed, target, renormed),
        unfinished,
        rev: doc?.rev ?? 0,
      });
    }
    const lease = { leaseOwner: owner, leaseUntil };

    // 1. Write-ahead: take each item's lease and record its target (an unfinished rebuild's targets stay instead).
    const taken = await mapLimit(plans, concurrency, (plan) =>
      writeDoc(
        plan,
        writeAhead(plan.committed, plan.unfinished.length > 0 ? plan.unfinished : [plan.target], lease),
      ),
    );
    let leased = plans.filter((plan, i) => {
      if (!taken[i]) again.push(plan.id);
      return taken[i];
    });
    try {
      // 2. An unfinished rebuild is rolled back: its postings go, the committed ones are put back; only then is
      // the new target recorded, so `pending` never holds more than one state.
      const recovering = leased.filter((plan) => plan.unfinished.length > 0);
      if (recovering.length > 0) {
        await writer.apply(
          {
            add: recovering.flatMap((p) => postingList(p.id, p.committed)),
            remove: recovering.flatMap((p) =>
              p.unfinished.flatMap((state) => without(p.id, state, p.committed)),
            ),
          },
          { fence },
        );
        const recorded = await mapLimit(recovering, concurrency, (plan) =>
          writeDoc(plan, writeAhead(plan.committed, [plan.target], lease)),
        );
        const lostIds = new Set(recovering.filter((_, i) => !recorded[i]).map((plan) => plan.id));
        leased = leased.filter((plan) => !lostIds.has(plan.id));
        again.push(...lostIds);
      }

      // 3. Postings, the whole batch grouped by term: a term an item keeps moves within one write of its term,
      // so the item stays findable by it throughout.
      const planned = leased.map((p) => changes(p.id, p.committed, p.target));
      await writer.apply(
        { add: planned.flatMap((p) => p.add), remove: planned.flatMap((p) => p.remove) },
        { fence },
      );

      // 4. Commit the doc records and the corpus counts.
      fence();
      const lost = await commit(leased);
      for (const plan of leased) {
        if (lost.has(plan.id)) again.push(plan.id);
        else outcomes.set(plan.id, plan.item ? 'indexed' : 'removed');
        if (!lost.has(plan.id) && plan.item && isShrunk(plan.target)) run.shrank = true;
      }
      return again;
    } catch (error) {
      await release(leased, owner);
      throw error;
    }
  }

  /**
   * Compacts the shrunk set once it holds `compactAt` entries or `compactBytes`: its items' postings rewritten in one
   * batch (where they share their terms' records: an edit costs what a batched one does), each committed out of the
   * set. One pass: an item another writer holds is left in the set for the next compaction (no writer waits for
   * another).
   */
  async function compact(atLeast = compactAt) {
    const rows = await queryAll(client, shrunkQuery(tableName));
    const entries = shrunkOf(rows);
    if (entries.length === 0 || (entries.length < atLeast && shrunkBytes(rows) < compactBytes)) return 0;
    const ids = entries.map((entry) => entry.id);
    const outcomes = new Map<number, IndexOutcome>();
    await pass(ids, { outcomes, renorm: new Set(ids), shrank: false });
    return [...outcomes.values()].filter((outcome) => outcome !== 'unchanged').length;
  }

  async function reindexItems(requested: readonly number[]) {
    const outcomes = new Map<number, IndexOutcome>();
    const run: Run = { outcomes, renorm: new Set(), shrank: false };
    let todo = [...new Set(requested)];
    await retry(async () => (todo = todo.length > 0 ? await pass(todo, run) : todo), {
      // A writer that died holds its items until its lease ends: wait that long (and a little) before giving up.
      attempts: Infinity,
      budgetMs: leaseMs * 2 + 5_000,
      backoff: { baseMs: 40, maxMs: 1_000 },
      until: (left) => left.length === 0,
      exhausted: () => new Error(`Items ${todo.join(', ')} kept changing while they were being indexed`),
    });
    if (run.shrank) await compact();
    return outcomes;
  }

  return {
    reindexItems,
    async reindexItem(id) {
      return (await reindexItems([id])).get(id) ?? 'unchanged';
    },
    compact,
  };
}
