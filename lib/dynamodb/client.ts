import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/lib-dynamodb';
// Types only (the SDK's own middleware types; nothing of it is bundled).
import type { FinalizeRequestMiddleware } from '@smithy/types';

export interface DocumentClientOptions {
  region: string;
  /** DynamoDB Local's URL; then fixed local credentials are used, since it ignores them. */
  endpoint?: string | undefined;
  /** Per-attempt time limit. With 3 attempts and back-off a request stays far below API Gateway's 29 s. */
  requestTimeoutMs?: number;
  /** Connections at once (the SDK's default: 50); a caller with more requests in flight raises it, or they queue. */
  maxSockets?: number | undefined;
}

/** A DynamoDB document client with bounded time-outs and retries, kept alive across invocations. */
export function createDocumentClient({
  region,
  endpoint,
  requestTimeoutMs = 2000,
  maxSockets,
}: DocumentClientOptions): DynamoDBDocumentClient {
  const agent = maxSockets === undefined ? {} : { httpAgent: { maxSockets }, httpsAgent: { maxSockets } };
  const client = new DynamoDBClient({
    region,
    maxAttempts: 3,
    // Without throwOnRequestTimeout the SDK only logs a warning and waits on a stalled connection forever.
    requestHandler: {
      connectionTimeout: 1000,
      requestTimeout: requestTimeoutMs,
      throwOnRequestTimeout: true,
      ...agent,
    },
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** What a client has sent: its requests, and their attempts (the SDK's retries are the attempts past the first). */
export interface RequestCounts {
  requests: number;
  attempts: number;
  /** The writes the requests carried: one a put, update or delete, each of a transaction's or a batch's. */
  writes: number;
}

/** The item writes one request carries (a transaction's condition checks write nothing). */
function writesOf(commandName: string | undefined, input: WriteInput): number {
  switch (commandName) {
    case 'PutItemCommand':
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return 1;
    case 'TransactWriteItemsCommand':
      return (input.TransactItems ?? []).filter((action) => !action.ConditionCheck).length;
    case 'BatchWriteItemCommand':
      return Object.values(input.RequestItems ?? {}).reduce((total, requests) => total + requests.length, 0);
    default:
      return 0;
  }
}
type WriteInput = {
  TransactItems?: readonly Record<string, unknown>[];
  RequestItems?: Record<string, readonly unknown[]>;
};

/**
 * Counts the requests `client` sends, each attempt of them, around the SDK's retries, and the item writes they carry.
 * A slow or throttled table shows as attempts above the requests (the stream handler publishes the difference,
 * `dynamodbRetries`); the writes (`dynamodbWrites`) bound a batch's write units from below.
 */
export function countRequests(client: DynamoDBDocumentClient): RequestCounts {
  const counts = { requests: 0, attempts: 0, writes: 0 };
  client.middlewareStack.add(
    (next, context) => (args) => {
      counts.requests++;
      counts.writes += writesOf(context.commandName, args.input as WriteInput);
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  const attempt: FinalizeRequestMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next) => (args) => {
    counts.attempts++;
    return next(args);
  };
  client.middlewareStack.addRelativeTo(attempt, {
    relation: 'after',
    toMiddleware: 'retryMiddleware',
    name: 'countAttempts',
  });
  return counts;
}
