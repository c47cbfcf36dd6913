// Starts what the tests need on free ports, with an issuer key generated for this run; nothing needs to be running
// beforehand. The integration project gets DynamoDB Local alone (in memory): its tests make their own tables and
// call the service's modules in-process. The E2E project gets the whole stack: DynamoDB Local, the table, the stream
// consumer and the API under serverless-offline.
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../scripts/local/dynamodb.ts';
import { createIssuer, type Issuer } from '../../scripts/local/issuer.ts';
import { freePort } from '../../scripts/local/ports.ts';
import { LOCAL_TABLE, localEnv, startStack } from '../../scripts/local/stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: {
      /** The API under serverless-offline; empty in the integration project, which starts none. */
      baseUrl: string;
      dynamodbEndpoint: string;
      tableName: string;
      issuer: Issuer;
      env: Record<string, string>;
      dynamodbPid: number;
    };
  }
}

export default async function setup(project: TestProject) {
  const issuer = createIssuer();
  const cursorKey = randomBytes(32).toString('base64url');
  if (project.name === 'integration') {
    const dynamodb = await startDynamoDbLocal({ port: await freePort() });
    project.provide('stack', {
      baseUrl: '',
      dynamodbEndpoint: dynamodb.endpoint,
      tableName: LOCAL_TABLE,
      issuer,
      env: localEnv(issuer, dynamodb.endpoint, cursorKey),
      dynamodbPid: dynamodb.process.pid ?? 0,
    });
    return () => dynamodb.stop();
  }
  const stack = await startStack({
    issuer,
    cursorKey,
    port: await freePort(),
    lambdaPort: await freePort(),
    dynamodbPort: await freePort(),
  });
  project.provide('stack', {
    baseUrl: stack.baseUrl,
    dynamodbEndpoint: stack.dynamodb.endpoint,
    tableName: LOCAL_TABLE,
    issuer,
    env: stack.env,
    dynamodbPid: stack.dynamodb.process.pid ?? 0,
  });
  return () => stack.stop();
}
