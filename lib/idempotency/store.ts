import { createHash, randomUUID } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { isCancelled, isConditionFailure } from '../dynamodb/conditions.ts';
import { IdempotencyInProgressError, IdempotencyKeyReusedError } from './errors.ts';

/** A write the operation must commit in the same transaction as its own, marking the record done with `result`. */
export type CommitWrite<T> = (result: T) => Record<string, unknown>;

const Record_ = v.object({
  status: v.picklist(['in_progress', 'done']),
  payloadHash: v.string(),
  token: v.string(),
  lockedUntil: v.number(),
  response: v.optional(v.string()),
});

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
  return async function once<T>(
    scope: { caller: string; key: string; payload: unknown },
    result: v.GenericSchema<unknown, T>,
    operation: (commit: CommitWrite<T>) => Promise<T>,
  ): Promise<{ result: T; replayed: boolean }> {
    const key = { pk: `IDEM#${sha256(`${scope.caller}\n${scope.key}`)}`, sk: 'IDEM' };
    const payloadHash = sha256(canonicalJson(scope.payload));
    const token = randomUUID();
    const lock = () => ({ token, lockedUntil: now() + lockSeconds * 1000 });
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...key,
            status: 'in_progress',
            payloadHash,
            ...lock(),
            expiresAt: Math.floor(now() / 1000) + ttlSeconds,
          },
          // A record past its 24 hours counts as gone even before TTL deletes it.
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
          ExpressionAttributeValues: { ':now': Math.floor(now() / 1000) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error) || !error.Item) throw error;
      // Errors carry the old item in DynamoDB's attribute-value form: the document client does not convert them.
      const existing = v.parse(Record_, unmarshall(error.Item));
      if (existing.payloadHash !== payloadHash) throw new IdempotencyKeyReusedError();
      if (existing.status === 'done' && existing.response) {
        return { result: v.parse(result, JSON.parse(existing.response)), replayed: true };
      }
      // This request's own put, landed though its reply was lost and the SDK sent it again: the key is ours.
      const ours = existing.token === token && existing.status === 'in_progress';
      if (!ours && existing.lockedUntil > now()) throw new IdempotencyInProgressError();
      // The first request stopped without finishing (nothing was committed): take its place.
      if (!ours)
        await client
          .send(
            new UpdateCommand({
              TableName: tableName,
              Key: key,
              UpdateExpression: 'SET #token = :token, lockedUntil = :until',
              ConditionExpression: '#token = :old AND #status = :inProgress',
              ExpressionAttributeNames: { '#token': 'token', '#status': 'status' },
              ExpressionAttributeValues: {
                ':token': token,
                ':until': lock().lockedUntil,
                ':old': existing.token,
                ':inProgress': 'in_progress',
              },
            }),
          )
          .catch((e: unknown) => {
            throw isConditionFailure(e) ? new IdempotencyInProgressError() : e;
          });
    }

    const commit: CommitWrite<T> = (response) => ({
      Update: {
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET #status = :done, #response = :response',
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#status': 'status', '#response': 'response', '#token': 'token' },
        ExpressionAttributeValues: {
          ':done': 'done',
          ':response': JSON.stringify(response),
          ':token': token,
        },
      },
    });
    try {
      return { result: await operation(commit), replayed: false };
    } catch (caught) {
      // A cancelled commit means another request took the key over after this one's lock ran out.
      const error = isCancelled(caught) ? new IdempotencyInProgressError() : caught;
      // Nothing was committed: release the key so the client can retry at once.
      await client
        .send(
          new DeleteCommand({
            TableName: tableName,
            Key: key,
            ConditionExpression: '#token = :token AND #status = :inProgress',
            ExpressionAttributeNames: { '#token': 'token', '#status': 'status' },
            ExpressionAttributeValues: { ':token': token, ':inProgress': 'in_progress' },
          }),
        )
        .catch(() => {});
      throw error;
    }
  };
}
