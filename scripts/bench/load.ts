// `npm run bench:load`: the index's pace with the machine's cores saturated by another process, beside its pace
// without, in one run. A file-backed DynamoDB Local (as `npm start` runs it); BENCH_LOAD_ITEMS Cranfield items
// (1,000) created, then indexed in the stream's batches by the stream consumer's writer and client (its time-outs and
// retries), each invocation given the consumer's timeout (infra/stream.json) and the items it had no time for
// delivered again, as Lambda retries them; then the same on a fresh DynamoDB Local with one busy-looping process per
// core beside it. Each phase has a DynamoDB Local of its own: on a shared one the second phase's table would start
// its stream behind the first's records, and DynamoDB Local writes such a table slower (`localPutRate`). Runs at
// normal priority: the burners take their share.
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { countRequests, createDocumentClient } from '../../lib/dynamodb/client.ts';
import { createItemLookup } from '../../lib/items/reader.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { createIndexer, reindexBatch } from '../../lib/search/index.ts';
import { streamSettings } from '../local/stream-batches.ts';
import { envNumber, fmt, tableOf, writeResult } from './common.ts';
import { cranfieldWrite, loadCranfield } from './cranfield.ts';
import { localPutRate, withDynamoDb } from './service.ts';

const ITEMS = envNumber('BENCH_LOAD_ITEMS', 1000);
const { docs } = await loadCranfield();
const tableOfPhase = (name: string) => `load-${name}`;

/** Creates the items on a fresh table, then indexes them a stream batch at a time: the figures of the indexing. */
async function phase(name: string, endpoint: string) {
  const tableName = tableOfPhase(name);
  const options = { region: 'us-east-1', endpoint };
  const client = createDocumentClient(options);
  const counts = countRequests(client);
  // The items are put by a patient client (no time-out to speak of): the figures are the indexing's.
  const setup = createDocumentClient({ ...options, requestTimeoutMs: 60_000 });
  const repository = createItemRepository({ client: setup, tableName });
  const ids: number[] = [];
  for (let i = 0; i < ITEMS; i += 8) {
    const chunk = docs.slice(i % docs.length, (i % docs.length) + Math.min(8, ITEMS - i));
    const items = await Promise.all(chunk.map((doc) => repository.create(cranfieldWrite(doc))));
    ids.push(...items.map((item) => item.id));
  }
  // DynamoDB Local's own pace as the indexing starts (with the burners, if any): the floor of the writer's.
  const putsPerSecond = await localPutRate(endpoint, tableName);
  const before = { ...counts };
  const indexer = createIndexer({ client, tableName, items: createItemLookup({ client, tableName }) });
  const [begin, load] = [performance.now(), loadavg()[0] ?? 0];
  const batches = { splits: 0, failed: 0, invocations: 0 };
  for (let i = 0; i < ids.length; i += streamSettings.batchSize) {
    for (let left = ids.slice(i, i + streamSettings.batchSize), tries = 0; left.length > 0; tries++) {
      if (tries > streamSettings.maximumRetryAttempts)
        throw new Error(`items ${left.join(', ')} were given up`);
      const deadline = Date.now() + streamSettings.functionTimeout * 1000;
      const result = await reindexBatch(indexer, left, { deadline });
      batches.invocations++;
      batches.splits += result.split ? 1 : 0;
      batches.failed += result.failed.length;
      left = result.failed.map(({ id }) => id);
    }
  }
  const seconds = (performance.now() - begin) / 1000;
  const requests = counts.requests - before.requests;
  const retries = counts.attempts - before.attempts - requests;
  client.destroy();
  setup.destroy();
  const { slowPasses } = indexer.counts;
  const itemsPerSecond = ids.length / seconds;
  return { name, itemsPerSecond, seconds, requests, retries, slowPasses, ...batches, load, putsPerSecond };
}
type Run = Awaited<ReturnType<typeof phase>>;

/** A phase on a file-backed DynamoDB Local of its own (why: the header). */
const onOwnDynamoDb = (name: string) =>
  withDynamoDb([tableOfPhase(name)], ({ endpoint }) => phase(name, endpoint), { fileBacked: true });

const COLUMNS: [string, (r: Run) => string][] = [
  ['run', (r) => r.name],
  ['items/s', (r) => fmt(r.itemsPerSecond)],
  ['seconds', (r) => fmt(r.seconds)],
  ['requests', (r) => fmt(r.requests, 0)],
  ['retries (attempts past the first)', (r) => fmt(r.retries, 0)],
  ['slow passes (gone again halved)', (r) => fmt(r.slowPasses, 0)],
  ['invocations', (r) => fmt(r.invocations, 0)],
  ['batches split', (r) => fmt(r.splits, 0)],
  ['items failed (delivered again)', (r) => fmt(r.failed, 0)],
  ['load average at start', (r) => fmt(r.load)],
  ["DynamoDB Local's own puts/s (32 in flight)", (r) => fmt(r.putsPerSecond, 0)],
];

const burners: ChildProcess[] = [];
try {
  const unloaded = await onOwnDynamoDb('unloaded');
  for (let core = 0; core < availableParallelism(); core++)
    burners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  const loaded = await onOwnDynamoDb('loaded');
  const runs = [unloaded, loaded];
  const markdown = `${tableOf(COLUMNS, runs)}

${fmt(ITEMS, 0)} Cranfield items in stream batches of ${fmt(streamSettings.batchSize, 0)}; loaded: ${availableParallelism()} busy-looping processes beside it. Loaded ÷ unloaded: **${fmt(loaded.itemsPerSecond / unloaded.itemsPerSecond, 2)}**; DynamoDB Local's own pace, the floor: ${fmt(loaded.putsPerSecond / unloaded.putsPerSecond, 2)}.`;
  writeResult('load', markdown, { runs });
} finally {
  for (const burner of burners) burner.kill('SIGKILL');
}
process.exit(0);
