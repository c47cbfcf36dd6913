import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { countRequests } from '../lib/dynamodb/client.ts';
import { createItemLookup } from '../lib/items/reader.ts';
import { metrics } from '../lib/observability.ts';
import { getRuntime } from '../lib/runtime.ts';
import { createIndexer } from '../lib/search/write/indexer.ts';
import { indexChanges } from '../lib/search/write/stream.ts';

// The table's stream consumer: keeps the BM25 index in step with the items (not an HTTP route).
const { table, config } = getRuntime();
const indexer = createIndexer({
  ...table,
  items: createItemLookup(table),
  ...(config.indexConcurrency ? { concurrency: config.indexConcurrency } : {}),
  ...(config.indexWritesPerTransaction ? { writesPerTransaction: config.indexWritesPerTransaction } : {}),
});
const requests = countRequests(table.client);

// Each invocation publishes its batch's figures (indexChanges): one EMF line, as the HTTP routes' logMetrics does.
// Its passes are sized to end before the invocation does.
export const handler = async (
  event: DynamoDBStreamEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<DynamoDBBatchResponse> => {
  const deadline = context ? Date.now() + context.getRemainingTimeInMillis() : undefined;
  try {
    return await indexChanges(indexer, event.Records, { requests, ...(deadline ? { deadline } : {}) });
  } finally {
    metrics.publishStoredMetrics();
  }
};
