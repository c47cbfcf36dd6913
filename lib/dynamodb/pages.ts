import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
} from '@aws-sdk/lib-dynamodb';

type StartKey = Record<string, unknown> | undefined;

/** Every page a paginated read gives, one after another from where the last ended (at most 1 MB a page). */
async function* pages<Page extends { LastEvaluatedKey?: StartKey }>(
  read: (startKey: StartKey) => Promise<Page>,
): AsyncGenerator<Page> {
  let startKey: StartKey;
  do {
    const page = await read(startKey);
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

const from = (startKey: StartKey) => (startKey ? { ExclusiveStartKey: startKey } : {});

/** Every page of a Scan. */
export const scanPages = (
  client: DynamoDBDocumentClient,
  input: ScanCommandInput,
): AsyncGenerator<ScanCommandOutput> =>
  pages((startKey) => client.send(new ScanCommand({ ...input, ...from(startKey) })));

/** Every page of a Query. */
export const queryPages = (
  client: DynamoDBDocumentClient,
  input: QueryCommandInput,
): AsyncGenerator<QueryCommandOutput> =>
  pages((startKey) => client.send(new QueryCommand({ ...input, ...from(startKey) })));
