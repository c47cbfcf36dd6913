// `npm run reindex`: rebuilds the search index from the items.
// Locally (default) against DynamoDB Local on DYNAMODB_PORT; on AWS with TABLE_NAME and AWS_REGION set.
import { createDocumentClient } from '../lib/dynamodb/client.ts';
import { createItemRepository } from '../lib/items/repository.ts';
import { createIndexer } from '../lib/search/indexer.ts';
import { rebuildIndex } from '../lib/search/rebuild.ts';
import { LOCAL_TABLE } from './local/stack.ts';

// With TABLE_NAME and no DYNAMODB_ENDPOINT, it runs against AWS (credentials from the environment).
const onAws = Boolean(process.env.TABLE_NAME) && !process.env.DYNAMODB_ENDPOINT;
const tableName = process.env.TABLE_NAME ?? LOCAL_TABLE;
const client = createDocumentClient({
  region: process.env.AWS_REGION ?? 'us-east-1',
  endpoint: onAws
    ? undefined
    : (process.env.DYNAMODB_ENDPOINT ?? `http://127.0.0.1:${process.env.DYNAMODB_PORT ?? 8000}`),
  requestTimeoutMs: 10_000,
});
const items = createItemRepository({ client, tableName });
const started = Date.now();
const report = await rebuildIndex({
  client,
  tableName,
  items,
  indexer: createIndexer({ client, tableName, items }),
});
console.log(
  `Reindexed ${report.items} items in ${tableName} (${Date.now() - started} ms): removed ${report.removed} deleted items, ` +
    `${report.strayPostings} stray postings, repaired ${report.repairedCounts} counters.`,
);
client.destroy();
