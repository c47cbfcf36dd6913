import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { queryPages } from './pages.ts';

/** Every item a Query matches, page after page (DynamoDB returns at most 1 MB a page). */
export async function queryAll(
  client: DynamoDBDocumentClient,
  input: QueryCommandInput,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(client, input)) items.push(...(page.Items ?? []));
  return items;
}

/** Every item each of the Queries matches (run side by side), in the Queries' order. */
export async function queryEach(
  client: DynamoDBDocumentClient,
  inputs: readonly QueryCommandInput[],
): Promise<Record<string, unknown>[]> {
  return (await Promise.all(inputs.map((input) => queryAll(client, input)))).flat();
}
