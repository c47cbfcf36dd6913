import { randomUUID } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { awsFailure } from '../../aws/errors.ts';
import { mapLimit } from '../../concurrency.ts';
import { isConditionFailure, retryableCancellation } from '../../dynamodb/conditions.ts';
import { type RetryPolicy, retry } from '../../retry.ts';
import { docKey, leaseKey } from '../format/keys.ts';
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
/**
 * A renewal that timed out or was throttled goes again, while the lease it extends still lets a write through: it only
 * ever moves the lease record's end later, so one that landed unseen does no harm.
 */
const RENEWAL_RETRIES: RetryPolicy<void> = {
  attempts: 5,
  backoff: { baseMs: 50, maxMs: 1_000 },
  retryable: (error) => awsFailure(error) === 'timeout' || awsFailure(error) === 'throttled',
};
/** How long the table keeps a lease record after its end (its TTL): no writer reads one that old. */
const LEASE_RECORD_DAYS = 1;

/** What a pass throws when its fence stops it: its items can go again, in a smaller pass. */
export class LeaseRanOut extends Error {
  constructor() {
    super('the index writer ran out of its lease');
  }
}

/** Moves a lease's end on to `until`. */
type Extend = (until: number) => Promise<void>;

/**
 * A pass's lease on the items it works on (docs/index-format.md, "lease" and "fence"): its owner and end. Its fence
 * stops the writer before any write sent too near the end, so no write of a writer whose items another took over
 * lands after the takeover. A pass longer than half its lease renews it (`keepUp`): one write of its lease record,
 * which a writer reads for an item whose doc record's lease has run out. The end the fence keeps to moves only once
 * the renewal has landed, and a renewal that fails stops the pass at its next write.
 */
export class Lease {
  readonly owner = randomUUID();
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #fenceMs: number;
  readonly #renewMs: number;
  /** The lease's end as the table holds it, the renewal under way (if any), and the reason one failed (if any). */
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
   * Starts moving the lease's end on through `extend` once `renewMs` of it have gone, unless a renewal is under way;
   * does not wait for it. Called just after the fence, before a write: the renewal is a write the fence lets through,
   * so it lands before the lease it extends has ended, and a writer that reads the lease after that end reads it.
   */
  keepUp(extend: Extend): void {
    const state = this.#state;
    const now = this.#now();
    if (state.renewing || state.lost !== undefined || now < state.until - this.#leaseMs + this.#renewMs)
      return;
    const until = now + this.#leaseMs;
    state.renewing = extend(until).then(
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

  /** Resolves once no renewal is under way: a pass's step ends with its renewal landed (or failed). */
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
  /** The clock leases are read and written by (and passes timed by). */
  now: () => number;
  /** How long a writer holds an item. */
  leaseMs: number;
  /** How long before its lease ends a writer sends its last write. */
  fenceMs: number;
  /** How long into its lease a writer renews it. */
  renewMs: number;
}

/**
 * Moves the lease record of `owner` on to `until` (created by a pass's first renewal; docs/index-format.md, the lease
 * record), never back: a renewal retried after one that landed unseen finds its end there already. Each attempt is
 * sent only through `fence` (the lease being renewed): one sent later could land after another writer, finding the
 * lease ended, took the items over.
 */
export async function renewLease(
  { client, tableName }: DocTable,
  { owner, until, fence }: { owner: string; until: number; fence: () => void },
): Promise<void> {
  const renew = async () => {
    fence();
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: leaseKey(owner),
          UpdateExpression: 'SET leaseUntil = :until, expiresAt = :expires',
          ConditionExpression: 'attribute_not_exists(pk) OR leaseUntil < :until',
          ExpressionAttributeValues: {
            ':until': until,
            ':expires': Math.ceil(until / 1000) + LEASE_RECORD_DAYS * 86_400,
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  };
  await retry(renew, RENEWAL_RETRIES);
}

/**
 * Whether a doc record is held by a writer whose lease has not run out: the end the record carries, or a later one
 * its writer's lease record holds (`renewed`, by owner).
 */
export const isHeld = (
  doc: { leaseOwner?: string | undefined; leaseUntil?: number | undefined } | undefined,
  now: () => number,
  renewed: ReadonlyMap<string, number> = new Map(),
) => {
  if (!doc?.leaseOwner) return false;
  return Math.max(doc.leaseUntil ?? 0, renewed.get(doc.leaseOwner) ?? 0) > now();
};

/** A doc record with its id and rev, and the plan that writes it. */
type DocWrite = { plan: { id: number; rev: number }; fields: Record<string, unknown> };

/** The Put of a plan's doc record (`fields`, rev + 1), if its rev is still `plan.rev`. */
const docPut = (tableName: string, { plan, fields }: DocWrite) => ({
  TableName: tableName,
  Item: { ...docKey(plan.id), ...fields, rev: plan.rev + 1 },
  ...revCondition(plan.rev),
});

/** Writes a plan's doc record if its rev is still `plan.rev`; true when it did (and the plan's rev moved on). */
export async function writeDoc(
  { client, tableName }: DocTable,
  plan: { id: number; rev: number },
  fields: Record<string, unknown>,
): Promise<boolean> {
  try {
    await client.send(new PutCommand(docPut(tableName, { plan, fields })));
    plan.rev++;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * `writeDoc` of several items in one transaction: true once every one landed; false when a condition or another
 * writer's transaction cancelled it, and none did. Any other failure is thrown.
 */
export async function writeDocsTogether(
  { client, tableName }: DocTable,
  docs: readonly DocWrite[],
): Promise<boolean> {
  try {
    await client.send(
      new TransactWriteCommand({ TransactItems: docs.map((doc) => ({ Put: docPut(tableName, doc) })) }),
    );
  } catch (error) {
    if (retryableCancellation(error)) return false;
    throw error;
  }
  for (const { plan } of docs) plan.rev++;
  return true;
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
