import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../../concurrency.ts';
import { isConditionFailure } from '../../dynamodb/conditions.ts';
import { docKey } from '../format/keys.ts';
import { revCondition } from './doc-record.ts';

/** Where doc records are written. */
interface DocTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * How long a writer holds the items it works on: longer than the stream consumer's 60 s timeout, so a consumer
 * that Lambda stops at its timeout has written its last posting before anyone takes its items over.
 */
export const LEASE_MS = 90_000;
/** A writer's last write is sent at least this long before its lease ends (request time-outs and retries included). */
export const FENCE_MS = 15_000;

/** What a pass throws when its fence stops it: its items can go again, in a smaller pass. */
export class LeaseRanOut extends Error {
  constructor() {
    super('the index writer ran out of its lease');
  }
}

/**
 * A pass's lease on the items it works on (docs/index-format.md, "lease" and "fence"): its owner and end, taken when
 * the pass starts. Its fence stops the writer before any write sent too near the end, so no write of a writer whose
 * items another took over lands after the takeover.
 */
export class Lease {
  readonly owner = randomUUID();
  readonly until: number;
  readonly #now: () => number;
  readonly #fenceMs: number;

  constructor({ now, leaseMs, fenceMs }: { now: () => number; leaseMs: number; fenceMs: number }) {
    this.#now = now;
    this.#fenceMs = fenceMs;
    this.until = now() + leaseMs;
  }

  /** Throws when a write now could land after the lease ends; called before every write. */
  readonly fence = (): void => {
    if (this.#now() > this.until - this.#fenceMs) throw new LeaseRanOut();
  };

  /** The lease's fields in a doc record. */
  get fields() {
    return { leaseOwner: this.owner, leaseUntil: this.until };
  }
}

/** Whether a doc record is held by a writer whose lease has not run out. */
export const isHeld = (
  doc: { leaseOwner?: string | undefined; leaseUntil?: number | undefined } | undefined,
  now: () => number,
) => Boolean(doc?.leaseOwner) && (doc?.leaseUntil ?? 0) > now();

/** Writes a plan's doc record if its rev is still `plan.rev`; true when it did (and the plan's rev moved on). */
export async function writeDoc(
  { client, tableName }: DocTable,
  plan: { id: number; rev: number },
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
