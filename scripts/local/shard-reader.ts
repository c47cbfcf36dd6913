// One shard of the stream, read ahead of the batches it feeds to the local consumer (stream-batches.ts `pollStream`),
// as Lambda's poller keeps polling a shard while its function runs. On this one table most of the stream is the
// index's own writes, which the filter drops (infra/stream.json): a batch of 700 items writes thousands of them, and
// reading them after the batch, rather than while it runs, kept the next batch waiting for seconds
// (BENCHMARKS.md, Freshness: "between batches").
import { type DynamoDBStreamsClient, GetRecordsCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { type FilterPattern, passesFilters } from './stream-filter.ts';

/** How long a reader that found nothing new waits before it asks again (Lambda polls a shard 4 times a second). */
export const IDLE_POLL_MS = 100;
/** Records one GetRecords returns at most (DynamoDB Streams' limit). */
const PAGE = 1000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Wakes whoever waits on it, or lets them go after `ms` at most. */
export class Signal {
  #next = Promise.withResolvers<void>();

  notify(): void {
    this.#next.resolve();
    this.#next = Promise.withResolvers<void>();
  }

  wait(ms: number): Promise<void> {
    return Promise.race([this.#next.promise, sleep(ms)]);
  }
}

/** A batch as `take` hands it out: its item records, and how many records (filtered out included) were read for it. */
export interface ReadBatch {
  records: DynamoDBRecord[];
  read: number;
}

export interface ShardReaderOptions {
  batchSize: number;
  /** The records that reach the consumer (Lambda's event filtering); the rest are read and dropped. */
  filterPatterns: readonly FilterPattern[];
  /** Told after every read, so a consumer waiting for records goes on at once. */
  readSome: Signal;
}

/**
 * Reads one shard from `iterator` into a buffer of item records, as far ahead as `batchSize` of them, until the shard
 * ends, a read fails or `stop` is called. `take` cuts the batches as Lambda with a batching window of 0 does: up to
 * `batchSize` records, or what the shard has now.
 */
export class ShardReader {
  /** Item records read and not yet taken, in stream order. */
  readonly #records: DynamoDBRecord[] = [];
  /** Records read (filtered out included) since the last batch was taken. */
  #read = 0;
  /** The shard's last read found nothing new: the buffer holds all it has for now. */
  #caughtUp = false;
  #state: { reading: true } | { reading: false; failure?: { error: unknown } } = { reading: true };
  #stopped = false;
  /** Told when a batch is taken, so a reader holding a full buffer reads on. */
  readonly #taken = new Signal();
  readonly #options: ShardReaderOptions;
  /** Resolves once the reader has stopped reading. */
  readonly ended: Promise<void>;

  constructor(streams: DynamoDBStreamsClient, iterator: string | undefined, options: ShardReaderOptions) {
    this.#options = options;
    this.ended = this.#readAll(streams, iterator);
  }

  async #readAll(streams: DynamoDBStreamsClient, first: string | undefined): Promise<void> {
    let iterator = first;
    try {
      while (iterator && !this.#stopped) {
        if (this.#records.length >= this.#options.batchSize) {
          await this.#taken.wait(IDLE_POLL_MS);
          continue;
        }
        const reply = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: PAGE }));
        const page = (reply.Records ?? []) as unknown as DynamoDBRecord[];
        iterator = reply.NextShardIterator;
        this.#read += page.length;
        this.#records.push(...page.filter((record) => passesFilters(this.#options.filterPatterns, record)));
        this.#caughtUp = page.length === 0;
        this.#options.readSome.notify();
        if (page.length === 0) await sleep(IDLE_POLL_MS);
      }
      this.#state = { reading: false };
    } catch (error) {
      this.#state = { reading: false, failure: { error } };
    }
    this.#options.readSome.notify();
  }

  /**
   * The next batch, once the buffer holds `batchSize` records or all the shard has for now; `undefined` while it
   * does not, and `'ended'` once the shard has ended and every record was taken. Throws the error a read failed with.
   */
  take(): ReadBatch | 'ended' | undefined {
    const { batchSize } = this.#options;
    const reading = this.#state.reading;
    if (!reading && this.#state.failure) throw this.#state.failure.error;
    if (this.#records.length === 0) return reading ? undefined : 'ended';
    if (reading && this.#records.length < batchSize && !this.#caughtUp) return undefined;
    const batch = { records: this.#records.splice(0, batchSize), read: this.#read };
    this.#read = 0;
    this.#taken.notify();
    return batch;
  }

  /** Stops reading; `ended` resolves once a read in flight has come back. */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#taken.notify();
    return this.ended;
  }
}
