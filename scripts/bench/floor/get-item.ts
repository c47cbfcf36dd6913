// The cold-start floor: the same SDK as the service, and only the raw GetCommand get-item makes.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { itemKey } from '../../../lib/items/keys.ts';

const { AWS_REGION = 'us-east-1', DYNAMODB_ENDPOINT, TABLE_NAME } = process.env;
const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: AWS_REGION, ...(DYNAMODB_ENDPOINT ? { endpoint: DYNAMODB_ENDPOINT } : {}) }),
);

export const handler = async (event: { pathParameters: { item_id: string } }) => {
  const Key = itemKey(Number(event.pathParameters.item_id));
  const { Item } = await client.send(new GetCommand({ TableName: TABLE_NAME, Key, ConsistentRead: true }));
  return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item) };
};
