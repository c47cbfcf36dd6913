import { createHash, randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { isCancelled } from '../dynamodb/conditions.ts';
import { type ClaimSettings, KeyClaim } from './claim.ts';
import { IdempotencyInProgressError } from './errors.ts';

/** A write the operation must commit in the same transaction as its own, marking the record done with `result`. */
export type CommitWrite<T> = (result: T) => Record<string, unknown>;

/** JSON with object keys sorted, so equal bodies hash equally whatever their key order or spacing. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

export interface IdempotencyOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** How long a key is remembered (the contract: 24 hours). */
  ttlSeconds?: number;
  /** How long a first request holds the key before a retry may take over (it crashed, say). */
  lockSeconds?: number;
  now?: () => number;
}

/**
 * Idempotency-Key handling with conditional writes: a record per caller and key (`IDEM#<hash>`) taken with a
 * conditional put; the operation commits its own write and the record's `done` state (with the operation's result,
 * as JSON) in one transaction, so a crash can never leave a created item without its record; duplicates never touch
 * the record of the first. A repeat gets the first result back, read through `result`, the schema of what the
 * operation returns.
 */
export function createIdempotency({
  client,
  tableName,
  ttlSeconds = 24 * 3600,
  lockSeconds = 30,
  now = Date.now,
}: IdempotencyOptions) {
  const settings: ClaimSettings = { client, tableName, ttlSeconds, lockSeconds, now };
  return async function once<T>(
    scope: { caller: string; key: string; payload: unknown },
    result: v.GenericSchema<unknown, T>,
    operation: (commit: CommitWrite<T>) => Promise<T>,
  ): Promise<{ result: T; replayed: boolean }> {
    const key = { pk: `IDEM#${sha256(`${scope.caller}\n${scope.key}`)}`, sk: 'IDEM' };
    const claim = new KeyClaim(settings, key, sha256(canonicalJson(scope.payload)), randomUUID());
    const recorded = await claim.take();
    if (recorded !== undefined) return { result: v.parse(result, JSON.parse(recorded)), replayed: true };
    try {
      return { result: await operation((response) => claim.commitWrite(response)), replayed: false };
    } catch (caught) {
      // A cancelled commit means another request took the key over after this one's lock ran out.
      const error = isCancelled(caught) ? new IdempotencyInProgressError() : caught;
      // Nothing was committed: release the key so the client can retry at once.
      await claim.release();
      throw error;
    }
  };
}
