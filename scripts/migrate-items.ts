// `npm run migrate-items`: moves the items of a table written before issue #21 (pk ITEM, one partition) to their
// shards (lib/items/migrate.ts), while the API serves. Resumable: run it again after an interruption; on a migrated
// table it finds nothing to move. It prints a line per page: `migrate-items: N moved, M left`.
//   npm run migrate-items [-- --concurrency 8 --page-size 100]
// Locally (default) against DynamoDB Local on DYNAMODB_PORT; on AWS with TABLE_NAME and AWS_REGION set.
import { parseArgs } from 'node:util';
import { createDocumentClient } from '../lib/dynamodb/client.ts';
import { migrateItems } from '../lib/items/migrate.ts';
import { LOCAL_TABLE } from './local/stack.ts';

const { values: args } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '8' },
    'page-size': { type: 'string', default: '100' },
  },
});
const positive = (name: string, text: string) => {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`--${name} must be a positive integer, not "${text}"`);
  return n;
};

// With TABLE_NAME and no DYNAMODB_ENDPOINT, it runs against AWS (credentials from the environment).
const onAws = Boolean(process.env.TABLE_NAME) && !process.env.DYNAMODB_ENDPOINT;
const tableName = process.env.TABLE_NAME ?? LOCAL_TABLE;
const region = process.env.AWS_REGION ?? 'us-east-1';
const endpoint = onAws
  ? undefined
  : (process.env.DYNAMODB_ENDPOINT ?? `http://127.0.0.1:${process.env.DYNAMODB_PORT ?? 8000}`);
const client = createDocumentClient({ region, endpoint, requestTimeoutMs: 10_000 });
const started = Date.now();
try {
  const report = await migrateItems({
    client,
    tableName,
    concurrency: positive('concurrency', args.concurrency),
    pageSize: positive('page-size', args['page-size']),
    onProgress: ({ moved, skipped, left }) =>
      console.log(`migrate-items: ${moved} moved, ${skipped} moved or deleted by writers, ${left} left`),
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `migrate-items: done in ${seconds} s: ${report.moved} moved, ${report.skipped} moved or deleted by writers; ` +
      'every item is on its shard',
  );
} finally {
  client.destroy();
}
