import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTokenVerifier, type TokenVerifier } from './auth/verifier.ts';
import { type Config, getConfig } from './config.ts';
import { createDocumentClient } from './dynamodb/client.ts';
import { type CursorCodec, createCursorCodec } from './items/cursor.ts';
import { createItemRepository, type ItemRepository } from './items/repository.ts';
import { installShutdownHook, lifecycle } from './lifecycle.ts';
import { logger, metrics } from './observability.ts';

export interface Runtime {
  config: Config;
  client: DynamoDBDocumentClient;
  items: ItemRepository;
  /** Built on its first use; routes that always need a token prefetch the JWKS (`authenticate`). */
  verifier: TokenVerifier;
  cursors: CursorCodec;
}

let runtime: Runtime | undefined;

/** Cold-start initialisation: configuration, clients and verifier, built once per process and reused. */
export function getRuntime(): Runtime {
  if (runtime) return runtime;
  const config = getConfig();
  const client = createDocumentClient({ region: config.region, endpoint: config.dynamodbEndpoint });
  lifecycle.onShutdown('dynamodb client', () => client.destroy());
  // Flushing an empty buffer only logs a warning ("No application metrics to publish"), on every stop.
  lifecycle.onShutdown('metrics', () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  });
  lifecycle.onShutdown('logs', () => logger.flushBuffer());
  installShutdownHook();
  runtime = {
    config,
    client,
    items: createItemRepository({ client, tableName: config.tableName }),
    verifier: createTokenVerifier(config.auth),
    cursors: createCursorCodec(config.cursorKey),
  };
  return runtime;
}
