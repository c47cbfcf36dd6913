// One request's hold on its Idempotency-Key record (`IDEM#<hash>`): taken with a conditional put, taken over from a
// first request that stopped, marked done in the operation's own transaction, or released when nothing committed.
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { isConditionFailure } from '../dynamodb/conditions.ts';
import { IdempotencyInProgressError, IdempotencyKeyReusedError } from './errors.ts';

/** The table and clock a claim works with, and how long its record and its lock last. */
export interface ClaimSettings {
  client: DynamoDBDocumentClient;
  tableName: string;
  ttlSeconds: number;
  lockSeconds: number;
  now: () => number;
}

const KeyRecord = v.object({
  status: v.picklist(['in_progress', 'done']),
  payloadHash: v.string(),
  token: v.string(),
  lockedUntil: v.number(),
  response: v.optional(v.string()),
});

type KeyRecord = v.InferOutput<typeof KeyRecord>;

/** A request's claim on its key record: the record's key, the request's payload hash and its own token. */
export class KeyClaim {
  readonly #settings: ClaimSettings;
  readonly #key: { pk: string; sk: string };
  readonly #payloadHash: string;
  readonly #token: string;

  constructor(settings: ClaimSettings, key: { pk: string; sk: string }, payloadHash: string, token: string) {
    this.#settings = settings;
    this.#key = key;
    this.#payloadHash = payloadHash;
    this.#token = token;
  }

  /**
   * Takes the key for this request: undefined when it holds it now, or the first request's recorded result (JSON)
   * to replay. Throws when the key was used with another body, or when its first request still holds it.
   */
  async take(): Promise<string | undefined> {
    try {
      await this.#put();
      return undefined;
    } catch (error) {
      if (!isConditionFailure(error) || !error.Item) throw error;
      // Errors carry the old item in DynamoDB's attribute-value form: the document client does not convert them.
      return this.#settle(v.parse(KeyRecord, unmarshall(error.Item)));
    }
  }

  /** The write that marks the record done with `result`, to commit in the operation's own transaction. */
  commitWrite(result: unknown): Record<string, unknown> {
    return {
      Update: {
        TableName: this.#settings.tableName,
        Key: this.#key,
        UpdateExpression: 'SET #status = :done, #response = :response',
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#status': 'status', '#response': 'response', '#token': 'token' },
        ExpressionAttributeValues: {
          ':done': 'done',
          ':response': JSON.stringify(result),
          ':token': this.#token,
        },
      },
    };
  }

  /** Deletes the record while this request still holds it unfinished, so the client can retry at once. */
  async release(): Promise<void> {
    const { client, tableName } = this.#settings;
    await client
      .send(
        new DeleteCommand({
          TableName: tableName,
          Key: this.#key,
          ...heldBy(this.#token),
        }),
      )
      .catch(() => {});
  }

  #lockedUntil(): number {
    return this.#settings.now() + this.#settings.lockSeconds * 1000;
  }

  async #put(): Promise<void> {
    const { client, tableName, now, ttlSeconds } = this.#settings;
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...this.#key,
          status: 'in_progress',
          payloadHash: this.#payloadHash,
          token: this.#token,
          lockedUntil: this.#lockedUntil(),
          expiresAt: Math.floor(now() / 1000) + ttlSeconds,
        },
        // A record past its 24 hours counts as gone even before TTL deletes it.
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
        ExpressionAttributeValues: { ':now': Math.floor(now() / 1000) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  }

  /** What the record found in the key's place means for this request (see `take`). */
  async #settle(existing: KeyRecord): Promise<string | undefined> {
    if (existing.payloadHash !== this.#payloadHash) throw new IdempotencyKeyReusedError();
    if (existing.status === 'done' && existing.response) return existing.response;
    // This request's own put, landed though its reply was lost and the SDK sent it again: the key is ours.
    if (existing.token === this.#token && existing.status === 'in_progress') return undefined;
    if (existing.lockedUntil > this.#settings.now()) throw new IdempotencyInProgressError();
    // The first request stopped without finishing (nothing was committed): take its place.
    await this.#takeOver(existing.token);
    return undefined;
  }

  async #takeOver(oldToken: string): Promise<void> {
    const { client, tableName } = this.#settings;
    await client
      .send(
        new UpdateCommand({
          TableName: tableName,
          Key: this.#key,
          UpdateExpression: 'SET #token = :token, lockedUntil = :until',
          ...heldBy(oldToken, { ':token': this.#token, ':until': this.#lockedUntil() }),
        }),
      )
      .catch((e: unknown) => {
        throw isConditionFailure(e) ? new IdempotencyInProgressError() : e;
      });
  }
}

/** The condition that the record is still unfinished under `token`, with the names and values it needs (and `values`). */
function heldBy(token: string, values: Record<string, unknown> = {}) {
  return {
    ConditionExpression: '#token = :held AND #status = :inProgress',
    ExpressionAttributeNames: { '#token': 'token', '#status': 'status' },
    ExpressionAttributeValues: { ...values, ':held': token, ':inProgress': 'in_progress' },
  };
}
