import { createTokenVerifier, type TokenVerifier } from './auth/verifier.ts';
import { type Config, getConfig } from './config.ts';
import { createDocumentClient } from './dynamodb/client.ts';
import type { ItemTable } from './items/table.ts';
import { installShutdownHook, lifecycle } from './lifecycle.ts';
import { logger, metrics } from './observability.ts';

export interface Runtime {
  config: Config;
  /**
   * The items' table and the DynamoDB client on it (the index and the idempotency records share both). Each handler
   * builds the part of lib/items it uses over it (the repository, or only the reads by id), so a handler that never
   * writes an item does not bundle the writes.
   */
  table: ItemTable;
  /** Built on its first use; routes that always need a token prefetch the JWKS (`authenticate`). */
  verifier: TokenVerifier;
}

let runtime: Runtime | undefined;

/** Cold-start initialisation: configuration, clients and verifier, built once per process and reused. */
export function getRuntime(): Runtime {
  if (runtime) return runtime;
  const config = getConfig();
  const client = createDocumentClient({
    region: config.region,
    endpoint: config.dynamodbEndpoint,
    // The stream consumer's requests in flight each hold a connection.
    maxSockets: config.indexConcurrency && Math.max(50, config.indexConcurrency),
  });
  lifecycle.onShutdown('dynamodb client', () => client.destroy());
  // Flushing an empty buffer only logs a warning ("No application metrics to publish"), on every stop.
  lifecycle.onShutdown('metrics', () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  });
  lifecycle.onShutdown('logs', () => logger.flushBuffer());
  installShutdownHook();
  runtime = {
    config,
    table: { client, tableName: config.tableName },
    verifier: createTokenVerifier(config.auth),
  };
  return runtime;
}
