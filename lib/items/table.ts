import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The table the items live in (keys.ts gives their keys), as the reads and writes of lib/items take it. */
export interface ItemTable {
  client: DynamoDBDocumentClient;
  tableName: string;
}
