import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
} from '@aws-sdk/lib-dynamodb';

/** Every page of a Scan, one after another from where the last ended (DynamoDB answers at most 1 MB a page). */
export async function* scanPages(
  client: DynamoDBDocumentClient,
  input: ScanCommandInput,
): AsyncGenerator<ScanCommandOutput> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ ...input, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }),
    );
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Every page of a Query, one after another from where the last ended. */
export async function* queryPages(
  client: DynamoDBDocumentClient,
  input: QueryCommandInput,
): AsyncGenerator<QueryCommandOutput> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({ ...input, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }),
    );
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
