import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { onlyConditionFailures } from '../../dynamodb/conditions.ts';

/**
 * The reindex checkpoint: every item id up to `throughId` is done (`items` of them); a later run resumes after it.
 * Written only forward, deleted when a run completes.
 */
export const CHECKPOINT_KEY = { pk: 'REINDEX', sk: 'PROGRESS' } as const;
const Checkpoint = v.object({ throughId: v.number(), items: v.number() });
export type Checkpoint = v.InferOutput<typeof Checkpoint>;

/** The checkpoint of an earlier run, if any (read consistently). */
export async function readCheckpoint(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<Checkpoint | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: CHECKPOINT_KEY, ConsistentRead: true }),
  );
  return Item ? v.parse(Checkpoint, Item) : undefined;
}

/**
 * The checkpoint's writes, one after another, and only forward (a condition), so a late write never moves it back.
 * `saved` is the last write sent, settled once every write before it is.
 */
export class CheckpointWriter {
  saved: Promise<void> = Promise.resolve();
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.#client = client;
    this.#tableName = tableName;
  }

  /** Queues the checkpoint `state`; returns the queue up to it. */
  save(state: Checkpoint): Promise<void> {
    this.saved = this.saved.then(() => this.#put(state));
    return this.saved;
  }

  async #put(state: Checkpoint): Promise<void> {
    try {
      await this.#client.send(
        new PutCommand({
          TableName: this.#tableName,
          Item: { ...CHECKPOINT_KEY, ...state, updatedAt: new Date().toISOString() },
          ConditionExpression: 'attribute_not_exists(pk) OR throughId < :id',
          ExpressionAttributeValues: { ':id': state.throughId },
        }),
      );
    } catch (error) {
      if (!onlyConditionFailures(error)) throw error;
    }
  }
}
