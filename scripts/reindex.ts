// `npm run reindex`: rebuilds the search index from the items (docs/operations.md).
//   npm run reindex [-- --concurrency 4 --page-size 100 --restart]   every item; resumes an interrupted run
//   npm run reindex -- --ids 1,2,3                                    exactly these items
//   npm run reindex -- --failure <file>                               the items of failed stream batches (on-failure
//                                                                     records from the queue or the local consumer)
//   npm run reindex -- --dictionary                                   puts every term's dictionary entry (its df
//                                                                     class) back on its tail, and a small term's
//                                                                     directory copy; the full reindex ends with it too
// Locally (default) against DynamoDB Local on DYNAMODB_PORT; on AWS with TABLE_NAME and AWS_REGION set.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { createDocumentClient } from '../lib/dynamodb/client.ts';
import { createItemRepository } from '../lib/items/repository.ts';
import { backfillDictionary } from '../lib/search/operations/backfill-dictionary.ts';
import { rebuildIndex } from '../lib/search/operations/rebuild.ts';
import { type BatchResult, reindexBatch } from '../lib/search/write/batch.ts';
import { createIndexer } from '../lib/search/write/indexer.ts';
import { LOCAL_TABLE } from './local/stack.ts';
import { progressPrinter } from './progress.ts';
import { parseFailureRecords, readFailedRange, regionOfArn } from './redrive.ts';

const { values: args } = parseArgs({
  options: {
    ids: { type: 'string' },
    failure: { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    'page-size': { type: 'string', default: '100' },
    restart: { type: 'boolean', default: false },
    dictionary: { type: 'boolean', default: false },
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
const items = createItemRepository({ client, tableName });
const indexer = createIndexer({ client, tableName, items });
const started = Date.now();

/** Reports a batch's outcome; true when every item is up to date (or cannot be, its record being invalid). */
function summarize(what: string, { outcomes, invalid, failed }: BatchResult): boolean {
  const counts = { indexed: 0, removed: 0, unchanged: 0 };
  for (const outcome of outcomes.values()) counts[outcome]++;
  console.log(
    `${what}: ${counts.indexed} indexed, ${counts.removed} removed from the index, ${counts.unchanged} already up to date` +
      (invalid.length
        ? `; invalid stored records (not indexed): ${invalid.map((f) => f.id).join(', ')}`
        : ''),
  );
  for (const { id, error } of failed) console.error(`item ${id} failed: ${String(error)}`);
  return failed.length === 0;
}

/** The full reindex's options, from the command line. */
const fullReindex = () => ({
  client,
  tableName,
  indexer,
  concurrency: positive('concurrency', args.concurrency),
  pageSize: positive('page-size', args['page-size']),
  restart: args.restart,
  onProgress: progressPrinter({ write: (line) => process.stderr.write(`${line}\n`) }),
});

/** The dictionary backfill; alone (`--dictionary`), with a line of progress a page. */
const dictionary = (progress = false) =>
  backfillDictionary({
    client,
    tableName,
    ...(progress
      ? {
          onPage: ({ tails, entries }: { tails: number; entries: number }) =>
            process.stderr.write(`dictionary: ${tails} terms seen, ${entries} entries written\n`),
        }
      : {}),
  });

try {
  if (args.dictionary) {
    const { tails, entries } = await dictionary(true);
    console.log(
      `Term dictionary of ${tableName}: ${entries} of ${tails} terms' entries written (${Date.now() - started} ms).`,
    );
  } else if (args.ids !== undefined) {
    const ids = args.ids.split(',').map((id) => positive('ids', id.trim()));
    const ok = summarize(
      `Reindexed items ${ids.join(', ')} in ${tableName}`,
      await reindexBatch(indexer, ids),
    );
    process.exitCode = ok ? 0 : 1;
  } else if (args.failure !== undefined) {
    const records = parseFailureRecords(readFileSync(args.failure, 'utf8'));
    if (records.length === 0) console.log(`No failure records in ${args.failure}: nothing to redrive.`);
    let gone = 0;
    let ok = true;
    for (const [i, record] of records.entries()) {
      const info = record.DDBStreamBatchInfo;
      const streams = new DynamoDBStreamsClient({
        region: onAws ? (regionOfArn(info.streamArn) ?? region) : region,
        ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
      });
      const range = await readFailedRange(streams, record);
      streams.destroy();
      const what = `Failure ${i + 1} of ${records.length} (shard ${info.shardId}, sequence ${info.startSequenceNumber} to ${info.endSequenceNumber})`;
      if (range.status === 'gone') {
        gone++;
        console.error(
          `${what}: its stream records are gone (${range.reason}); stream records last 24 hours. ` +
            'Run the full `npm run reindex` to bring the whole index up to date.',
        );
      }
      if (range.ids.length > 0 || range.status === 'read')
        ok =
          summarize(
            `${what}: items ${range.ids.join(', ') || '(none)'}`,
            await reindexBatch(indexer, range.ids),
          ) && ok;
    }
    process.exitCode = gone > 0 ? 2 : ok ? 0 : 1;
  } else {
    const report = await rebuildIndex(fullReindex());
    // Terms whose postings the rebuild left as they were keep their tails: their entries are brought up to date.
    const { entries } = await dictionary();
    console.log(
      `Reindexed ${report.items} items in ${tableName} (${Date.now() - started} ms)` +
        (report.resumedAfter !== undefined ? `, resuming after item ${report.resumedAfter}` : '') +
        `: removed ${report.removed} deleted items, ${report.strayPostings} stray postings, ` +
        `compacted ${report.compacted} shrunk items, ` +
        `repaired ${report.repairedCounts} counters` +
        (report.countsSkipped
          ? ` (${report.countsSkipped} changed by writers while checked: run again to check them)`
          : '') +
        (report.invalid ? `; ${report.invalid} items have invalid stored records (not indexed)` : '') +
        `; ${entries} dictionary entries written.`,
    );
  }
} finally {
  client.destroy();
}
