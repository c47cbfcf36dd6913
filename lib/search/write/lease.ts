import { randomUUID } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../concurrency.ts';
import { cancelledFor, isConditionFailure } from '../../dynamodb/conditions.ts';
import { type RetryPolicy, retry } from '../../retry.ts';
import { docKey } from '../format/keys.ts';
import { revCondition } from './doc-record.ts';

/** Where doc records are written. */
interface DocTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * How long a writer holds the items it works on from its last renewal. A writer that stops (Lambda ends it at its
 * timeout, a crash) stops renewing, and its fence has kept its last write inside the lease: its items are taken over
 * at most this long after its last renewal.
 */
export const LEASE_MS = 90_000;
/** A writer's last write is sent at least this long before its lease ends (request time-outs and retries included). */
export const FENCE_MS = 15_000;
/** Doc records a renewal extends in one transaction (DynamoDB's limit). */
const RENEWALS_PER_TRANSACTION = 100;
/** A renewal cancelled by a concurrent transaction on one of its doc records goes again, at most this often. */
const RENEWAL_RETRIES: RetryPolicy<void> = {
  attempts: 3,
  backoff: { baseMs: 20, maxMs: 200 },
  retryable: (error) =>
    cancelledFor(error, 'TransactionConflict') && !cancelledFor(error, 'ConditionalCheckFailed'),
};

/** What a pass throws when its fence stops it: its items can go again, in a smaller pass. */
export class LeaseRanOut extends Error {
  constructor() {
    super('the index writer ran out of its lease');
  }
}

/** A doc record a writer holds, and the rev it last wrote (or read) it at. */
interface Held {
  id: number;
  rev: number;
}

/** Extends the lease on `plans` to `until`. */
export type Extend = (plans: readonly Held[], until: number) => Promise<void>;

/**
 * A pass's lease on the items it works on (docs/index-format.md, "lease" and "fence"): its owner and end. Its fence
 * stops the writer before any write sent too near the end, so no write of a writer whose items another took over
 * lands after the takeover. A pass longer than half its lease renews it (`keepUp`): the end it holds moves only
 * once every doc record carries the new one, so a renewal that fails or half-lands leaves the fence where it was.
 */
export class Lease {
  readonly owner = randomUUID();
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #fenceMs: number;
  readonly #renewMs: number;
  /** The end every doc record of the pass carries, and the renewal under way (if any), or the reason one failed. */
  readonly #state: { until: number; renewing?: Promise<void> | undefined; lost?: unknown };

  constructor({ now, leaseMs, fenceMs, renewMs }: LeaseTimes) {
    this.#now = now;
    this.#leaseMs = leaseMs;
    this.#fenceMs = fenceMs;
    this.#renewMs = renewMs;
    this.#state = { until: now() + leaseMs };
  }

  /** Throws when a write now could land after the lease ends, or a renewal failed; called before every write. */
  readonly fence = (): void => {
    if (this.#state.lost !== undefined || this.#now() > this.#state.until - this.#fenceMs)
      throw new LeaseRanOut();
  };

  /**
   * Starts extending the lease on `plans` through `extend` once `renewMs` of it have gone, unless a renewal is under
   * way; does not wait for it. Called with the fence, before a write of postings (no doc record is written then).
   */
  keepUp(plans: readonly Held[], extend: Extend): void {
    const state = this.#state;
    if (state.renewing || state.lost !== undefined) return;
    if (this.#now() < state.until - this.#leaseMs + this.#renewMs) return;
    const until = this.#now() + this.#leaseMs;
    state.renewing = extend(plans, until).then(
      () => {
        state.until = until;
        state.renewing = undefined;
      },
      (error: unknown) => {
        state.lost = error ?? new LeaseRanOut();
        state.renewing = undefined;
      },
    );
  }

  /** Resolves once no renewal is under way: before a doc record is written, since a renewal moves each one's rev. */
  async settled(): Promise<void> {
    await this.#state.renewing;
  }

  /** The lease's fields in a doc record. */
  get fields() {
    return { leaseOwner: this.owner, leaseUntil: this.#state.until };
  }
}

/** The times a lease is taken, fenced and renewed by (WriterContext). */
export interface LeaseTimes {
  now: () => number;
  leaseMs: number;
  fenceMs: number;
  /** How long into its lease a writer renews it. */
  renewMs: number;
}

/**
 * Extends the lease on each of `plans` to `until`: transactions of up to 100 doc records, each conditional on the rev
 * the writer last wrote and moving it on, so a writer that took an item over (or read it to take it over) meanwhile
 * makes the renewal fail. Throws if any transaction failed; the plans of those that landed have their rev moved.
 */
export async function extendLeases(
  { client, tableName, concurrency }: DocTable & { concurrency: number },
  plans: readonly Held[],
  until: number,
): Promise<void> {
  const chunks = Array.from({ length: Math.ceil(plans.length / RENEWALS_PER_TRANSACTION) }, (_, i) =>
    plans.slice(i * RENEWALS_PER_TRANSACTION, (i + 1) * RENEWALS_PER_TRANSACTION),
  );
  await mapLimit(chunks, concurrency, async (chunk) => {
    const renewals = chunk.map((plan) => ({
      Update: {
        TableName: tableName,
        Key: docKey(plan.id),
        UpdateExpression: 'SET leaseUntil = :until, rev = :next',
        ConditionExpression: 'rev = :rev',
        ExpressionAttributeValues: { ':until': until, ':rev': plan.rev, ':next': plan.rev + 1 },
      },
    }));
    const renew = async () => {
      await client.send(new TransactWriteCommand({ TransactItems: renewals }));
    };
    await retry(renew, RENEWAL_RETRIES);
    for (const plan of chunk) plan.rev++;
  });
}

/** Whether a doc record is held by a writer whose lease has not run out. */
export const isHeld = (
  doc: { leaseOwner?: string | undefined; leaseUntil?: number | undefined } | undefined,
  now: () => number,
) => Boolean(doc?.leaseOwner) && (doc?.leaseUntil ?? 0) > now();

/** Writes a plan's doc record if its rev is still `plan.rev`; true when it did (and the plan's rev moved on). */
export async function writeDoc(
  { client, tableName }: DocTable,
  plan: Held,
  fields: Record<string, unknown>,
): Promise<boolean> {
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

/** Lets go of leases this writer still holds (after a failure), so the next attempt need not wait them out. */
export async function release(
  { client, tableName, concurrency }: DocTable & { concurrency: number },
  plans: readonly { id: number }[],
  owner: string,
) {
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
