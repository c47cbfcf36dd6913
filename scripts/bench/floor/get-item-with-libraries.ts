// The floor plus the libraries every handler needs, built the way the service builds them at start-up
// (Powertools logger and metrics, the Cognito JWT verifier built on first use, valibot, middy), and still only the raw GetCommand:
// what is left between this and get-item is the service's own code.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { CognitoJwtVerifier } from 'aws-jwt-verify';
import * as v from 'valibot';
import { itemKey } from '../../../lib/items/keys.ts';

const {
  AWS_REGION = 'us-east-1',
  DYNAMODB_ENDPOINT,
  TABLE_NAME,
  COGNITO_USER_POOL_ID,
  COGNITO_CLIENT_ID,
} = process.env;
const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: AWS_REGION, ...(DYNAMODB_ENDPOINT ? { endpoint: DYNAMODB_ENDPOINT } : {}) }),
);
const logger = new Logger({ serviceName: 'items' });
const metrics = new Metrics({ namespace: 'ItemsService', serviceName: 'items' });
// Built on the first request that carries a token, as the service builds it for public routes.
const verifier = () =>
  CognitoJwtVerifier.create({
    userPoolId: COGNITO_USER_POOL_ID ?? '',
    clientId: COGNITO_CLIENT_ID ?? '',
    tokenUse: 'access',
  });
const Path = v.object({ item_id: v.pipe(v.string(), v.regex(/^\d{1,16}$/)) });

interface Event {
  pathParameters: { item_id: string };
  headers?: Record<string, string>;
}

export const handler = middy(async (event: Event) => {
  const { item_id } = v.parse(Path, event.pathParameters);
  const Key = itemKey(Number(item_id));
  const { Item } = await client.send(new GetCommand({ TableName: TABLE_NAME, Key, ConsistentRead: true }));
  return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item) };
}).before(async ({ event }) => {
  if (event.headers?.authorization) await verifier().verify(event.headers.authorization);
  if (!metrics) logger.warn('unreachable');
});
