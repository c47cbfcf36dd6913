import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ItemLookup } from '../../items/reader.ts';
import type { Item } from '../../items/schema.ts';
import type { Indexed } from './doc-record.ts';
import type { Lease, LeaseTimes } from './lease.ts';
import type { PassSize } from './pass-size.ts';
import type { PostingWriter } from './postings.ts';

/**
 * What every step of the indexer works with: the tables, the posting writer, its clock and its limits (the lease's
 * times and clock: LeaseTimes).
 */
export interface WriterContext extends LeaseTimes {
  client: DynamoDBDocumentClient;
  tableName: string;
  items: ItemLookup;
  postings: PostingWriter;
  /** Requests in flight at once (doc records, terms). */
  concurrency: number;
  /** Doc records and term homes written in one transaction at most (1: each a request of its own; write-groups.ts). */
  writesPerTransaction: number;
  /** How many items the next pass takes, from the pace of the last. */
  passSize: PassSize;
  /** The writer's counts (slow passes), kept across its runs. */
  counts: WriterCounts;
  /** Shrunk-set entries at which a writer that adds one compacts the set. */
  compactAt: number;
  /** The shrunk set's stored bytes at which a writer that adds an entry compacts it, whatever its entries. */
  compactBytes: number;
}

/** A pass's steps (docs/index-format.md, the writer's protocol), each timed into `WriterCounts.stepMs`. */
export const STEPS = ['plan', 'writeAhead', 'rollback', 'postings', 'commit'] as const;
export type Step = (typeof STEPS)[number];

/** What a writer counts over its runs; the stream handler publishes what each batch added (stream.ts). */
export interface WriterCounts {
  /** Passes the table was too slow for (its fence, a timeout or throttling, or a write-ahead too slow to land): each
   * went again, halved. */
  slowPasses: number;
  /** Passes begun, a compaction's included: a batch takes one unless its pace or time split it, or some of its items
   * were held by another writer or lost a race (they go again in a pass of their own). */
  passes: number;
  /** Milliseconds spent in each step, summed over the passes (a pass's steps run one after another). */
  stepMs: Record<Step, number>;
}

/** A writer's counts before its first run. */
export const noCounts = (): WriterCounts => ({
  slowPasses: 0,
  passes: 0,
  stepMs: Object.fromEntries(STEPS.map((step) => [step, 0])) as Record<Step, number>,
});

/** Runs `work` as `step` of a pass, adding its time, by the wall clock (not the lease's), to `counts`. */
export async function timed<T>(counts: WriterCounts, step: Step, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    counts.stepMs[step] += performance.now() - started;
  }
}

/** `invalid`: the item's stored record (or its doc record) does not parse; retrying cannot fix it. */
export type IndexOutcome = 'unchanged' | 'indexed' | 'removed' | 'invalid';

/**
 * One indexing run's state across its passes: each item's outcome, its deadline, the ids a compaction renorms, and
 * whether a shrunk target committed (the run then compacts the shrunk set if it is full).
 */
export interface Run {
  outcomes: Map<number, IndexOutcome>;
  /** When the writer must have stopped writing (by `now`: a Lambda invocation's end); none: no limit. */
  deadline: number | undefined;
  renorm: ReadonlySet<number>;
  shrank: boolean;
}

/** An item's rebuild as a pass plans it: its doc record's committed state, the target, and any unfinished rebuild. */
export interface Plan {
  id: number;
  item: Item | undefined;
  committed: Indexed;
  target: Indexed;
  unfinished: Indexed[];
  /** The doc record's rev as this writer last wrote (or read) it. */
  rev: number;
}

/** One pass's state across its steps: its lease, the plans of the items it holds, and the ids to try again. */
export interface PassState {
  lease: Lease;
  leased: Plan[];
  again: number[];
  /** Whether the pass has changed a sealed block already there: its commit moves the counts' `sealed`. */
  rewrote: boolean;
}
