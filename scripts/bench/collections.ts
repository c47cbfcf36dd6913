// The synthetic collections of bench:scale and bench:options, bulk-loaded once and kept as DynamoDB Local snapshots
// keyed by what decides their records, and the retriever POST /retrieve runs on them, metered.
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  globSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createItemRepository } from '../../lib/items/repository.ts';
import {
  type AnswerCache,
  createDictionary,
  createRetriever,
  createSearch,
  type SearchOptions,
} from '../../lib/search/index.ts';
import { type DynamoDbLocal, localClient, startDynamoDbLocal, tableDefinition } from '../local/dynamodb.ts';
import { freePort } from '../local/ports.ts';
import { createMeter, meterClient, metered } from './capacity.ts';
import { prng, ROOT } from './common.ts';
import { bulkLoad } from './synthetic.ts';

const TABLE = 'items-bench';
/** What decides a snapshot's records: the loader, the table, the items' and the index's writing code. */
const INPUTS = globSync('lib/{items,search/{format,text,write}}/**/*.ts', { cwd: ROOT })
  .concat('scripts/bench/synthetic.ts', 'infra/table.json', 'lib/search/index.ts')
  .sort();
const hash = createHash('sha256');
for (const file of INPUTS) hash.update(file).update(readFileSync(join(ROOT, file)));
hash.update(String(prng));
const CACHE = join(ROOT, '.local', 'bench', 'collections', hash.digest('hex').slice(0, 16));
/** DynamoDB Local's database files on tmpfs when there is one (file mode on disk is ~10× slower). */
const SCRATCH = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const snapshotDir = (size: number) => join(CACHE, String(size));
const copyDatabases = (from: string, to: string) =>
  cpSync(from, to, { recursive: true, filter: (path) => path === from || path.endsWith('.db') });

/** DynamoDB Local on a scratch copy of a snapshot (or on an empty database). */
async function openScratch(size?: number): Promise<{ dir: string; dynamodb: DynamoDbLocal }> {
  const dir = mkdtempSync(join(SCRATCH, 'bench-collection-'));
  if (size !== undefined) copyDatabases(snapshotDir(size), dir);
  return { dir, dynamodb: await startDynamoDbLocal({ port: await freePort(), dataDir: dir }) };
}

type Load = { records: number; loadSeconds: number };
/** Bulk-loads the collection of `size` into a scratch database and keeps it as its snapshot. */
async function buildSnapshot(size: number): Promise<Load> {
  const { dir, dynamodb } = await openScratch();
  try {
    const raw = localClient(dynamodb.endpoint);
    const { TimeToLiveSpecification: _ttl, StreamSpecification: _stream, ...definition } = tableDefinition;
    await raw.send(new CreateTableCommand({ TableName: TABLE, ...definition }));
    const begin = performance.now();
    const { records } = await bulkLoad(DynamoDBDocumentClient.from(raw), TABLE, size, { concurrency: 4 });
    const loadSeconds = (performance.now() - begin) / 1000;
    raw.destroy();
    // A snapshot is a closed database: copied after DynamoDB Local stops, to a staging copy renamed when whole.
    await dynamodb.stop();
    const staging = `${snapshotDir(size)}.partial-${process.pid}`;
    copyDatabases(dir, staging);
    writeFileSync(join(staging, 'load.json'), JSON.stringify({ records, loadSeconds }));
    renameSync(staging, snapshotDir(size));
    console.log(`collection ${size}: +${records} records in ${loadSeconds.toFixed(0)} s, saved`);
    return { records, loadSeconds };
  } finally {
    await dynamodb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Builds the snapshot of every size not yet kept; the records and the seconds each load took. */
export async function prepareCollections(sizes: readonly number[]) {
  const reports = [];
  for (const size of sizes) {
    const saved = join(snapshotDir(size), 'load.json');
    const reused = existsSync(saved);
    const load: Load = reused ? JSON.parse(readFileSync(saved, 'utf8')) : await buildSnapshot(size);
    reports.push({ size, records: load.records, reused, builtSeconds: load.loadSeconds });
  }
  return reports;
}

/**
 * Runs `work` against DynamoDB Local serving a scratch copy of the snapshot of each size, all at once; `work` opens
 * retrievers on them (`collectionRetriever`), closed after it.
 */
export async function withCollections<T>(sizes: readonly number[], work: (retriever: Open) => Promise<T>) {
  const opened: { dir: string; dynamodb: DynamoDbLocal }[] = [];
  const retrievers: Retriever[] = [];
  try {
    for (const size of sizes) opened.push(await openScratch(size));
    return await work((size, options) => {
      const retriever = collectionRetriever(opened[sizes.indexOf(size)]?.dynamodb.endpoint ?? '', options);
      retrievers.push(retriever);
      return retriever;
    });
  } finally {
    for (const { raw } of retrievers) raw.destroy();
    for (const { dir, dynamodb } of opened) {
      await dynamodb.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** What a bench may set of a retriever: the search's settings, and the answers it keeps (none by default). */
type RetrieverOptions = Partial<SearchOptions> & { answers?: AnswerCache };

/** The retriever POST /retrieve runs (the service's settings, `options` over them), metered. */
function collectionRetriever(endpoint: string, { answers, ...options }: RetrieverOptions = {}) {
  const raw = localClient(endpoint);
  const meter = createMeter();
  meterClient(raw, meter);
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const table = { client, tableName: TABLE };
  const dictionary = createDictionary(table);
  const items = createItemRepository(table);
  const search = createSearch({ ...table, ...options });
  const retrieve = createRetriever({ search, items, dictionary, answers });
  /** The same on a dictionary that keeps nothing, as in a container that has not read the words' partitions. */
  const uncached = createRetriever({ search, items, dictionary: createDictionary({ ...table, cacheMs: 0 }) });
  const measure = (request: Parameters<typeof retrieve>[0], retriever = retrieve) =>
    metered(meter, () => retriever(request));
  return { raw, meter, dictionary, retrieve, uncached, measure };
}
type Retriever = ReturnType<typeof collectionRetriever>;
type Open = (size: number, options?: RetrieverOptions) => Retriever;

/**
 * One unmeasured pass of the queries on every target, then `passes` passes in which each query goes to every target
 * in rotating order; `keep` gets each time (ms).
 */
export async function interleave<T>(
  targets: readonly T[],
  queries: readonly string[],
  passes: number,
  run: (target: T, query: string) => Promise<unknown>,
  keep: (target: T, ms: number) => void,
): Promise<void> {
  for (const target of targets) for (const query of queries) await run(target, query);
  for (let pass = 0; pass < passes; pass++)
    for (const [q, query] of queries.entries())
      for (let i = 0; i < targets.length; i++) {
        const target = targets[(pass + q + i) % targets.length] as T;
        const begin = performance.now();
        await run(target, query);
        keep(target, performance.now() - begin);
      }
}
