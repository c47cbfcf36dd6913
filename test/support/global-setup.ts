// Starts what the tests need on free ports: DynamoDB Local (in memory), then the API under serverless-offline,
// with an issuer key generated for this run. Nothing needs to be running beforehand.
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { createIssuer, type Issuer } from '../../scripts/local/issuer.ts';
import { freePort } from '../../scripts/local/ports.ts';
import { LOCAL_TABLE, startStack } from '../../scripts/local/stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: {
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
  const stack = await startStack({
    issuer,
    cursorKey: randomBytes(32).toString('base64url'),
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
