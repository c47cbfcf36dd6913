import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { createItemLookup } from '../lib/items/reader.ts';
import { getRuntime } from '../lib/runtime.ts';
import { createIndexer } from '../lib/search/write/indexer.ts';
import { indexChanges } from '../lib/search/write/stream.ts';

// The table's stream consumer: keeps the BM25 index in step with the items (not an HTTP route).
const { client, config, table } = getRuntime();
const items = createItemLookup(table);
const indexer = createIndexer({ client, tableName: config.tableName, items });

export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  indexChanges(indexer, event.Records);
