import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DocumentClientOptions {
  region: string;
  /** DynamoDB Local's URL; then fixed local credentials are used, since it ignores them. */
  endpoint?: string | undefined;
  /** Per-attempt time limit. With 3 attempts and back-off a request stays far below API Gateway's 29 s. */
  requestTimeoutMs?: number;
}

/** A DynamoDB document client with bounded time-outs and retries, kept alive across invocations. */
export function createDocumentClient({
  region,
  endpoint,
  requestTimeoutMs = 2000,
}: DocumentClientOptions): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region,
    maxAttempts: 3,
    // Without throwOnRequestTimeout the SDK only logs a warning and waits on a stalled connection forever.
    requestHandler: {
      connectionTimeout: 1000,
      requestTimeout: requestTimeoutMs,
      throwOnRequestTimeout: true,
    },
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}
