import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureTable, localClient, startDynamoDbLocal } from './dynamodb.ts';
import type { Issuer } from './issuer.ts';
import { startOffline } from './offline.ts';
import { startStreamConsumer } from './stream-runner.ts';

export const LOCAL_TABLE = 'items-local';

/** The environment the functions get locally: what serverless.yml's `local` stage parameters read. */
export function localEnv(
  issuer: Issuer,
  dynamodbEndpoint: string,
  cursorKey: string,
): Record<string, string> {
  return {
    AWS_REGION: issuer.meta.region,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    COGNITO_USER_POOL_ID: issuer.meta.userPoolId,
    COGNITO_CLIENT_ID: issuer.meta.clientId,
    LOCAL_JWKS: JSON.stringify(issuer.jwks),
    CURSOR_KEY: cursorKey,
    DYNAMODB_ENDPOINT: dynamodbEndpoint,
    TABLE_NAME: LOCAL_TABLE,
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARN',
  };
}

/** Reads the local cursor key from `file`, creating it on first use. */
export function loadOrCreateSecret(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

export interface StackOptions {
  issuer: Issuer;
  cursorKey: string;
  port: number;
  lambdaPort: number;
  dynamodbPort: number;
  dataDir?: string;
  log?: boolean;
}

/** Starts DynamoDB Local, creates the table, then serves the API under serverless-offline. */
export async function startStack(options: StackOptions) {
  const dynamodb = await startDynamoDbLocal({
    port: options.dynamodbPort,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  try {
    const client = localClient(dynamodb.endpoint);
    await ensureTable(client, LOCAL_TABLE);
    client.destroy();
    const env = localEnv(options.issuer, dynamodb.endpoint, options.cursorKey);
    const consumer = startStreamConsumer(env);
    const offline = await startOffline({
      port: options.port,
      lambdaPort: options.lambdaPort,
      env,
      log: options.log ?? false,
    }).catch(async (error) => {
      await consumer.stop();
      throw error;
    });
    return {
      baseUrl: offline.baseUrl,
      dynamodb,
      offline,
      consumer,
      env,
      async stop() {
        await Promise.all([offline.stop(), consumer.stop()]);
        await dynamodb.stop();
      },
    };
  } catch (error) {
    await dynamodb.stop();
    throw error;
  }
}
