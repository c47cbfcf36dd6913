// The synthetic collections of bench:scale and bench:options, loaded once and kept. Each size is built from scratch
// in memory (items, doc records and posting blocks exactly as the repository and the indexer leave them) and written
// to DynamoDB Local, then saved under .local/bench/collections/ keyed by a fingerprint of every file that decides
// what the records are: changing the generator, the tokenizer or the record layout reloads. Also what both parts
// run on them: the retriever POST /retrieve runs, metered, and the queries interleaved across retrievers.
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
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
import { createDictionary, type DictionaryOptions } from '../../lib/search/read/dictionary.ts';
import { createSearch, type SearchOptions } from '../../lib/search/read/query.ts';
import { createRetriever } from '../../lib/search/read/retrieve.ts';
import { type DynamoDbLocal, localClient, startDynamoDbLocal, tableDefinition } from '../local/dynamodb.ts';
import { freePort } from '../local/ports.ts';
import { meteredClient } from './capacity.ts';
import { ROOT } from './common.ts';
import { bulkLoad } from './synthetic.ts';

const TABLE = 'items-bench';

/** What decides the stored records: change any of these files and the snapshots are rebuilt. */
const INPUTS = [
  'scripts/bench/synthetic.ts',
  'lib/items/keys.ts',
  'lib/items/record.ts',
  'lib/search/format/blocks.ts',
  'lib/search/format/bm25.ts',
  'lib/search/write/indexer.ts',
  'lib/search/format/keys.ts',
  'lib/search/write/postings.ts',
  'lib/search/format/terms.ts',
  'lib/search/text/tokenizer.ts',
  'infra/table.json',
];

/**
 * The index's record layout, hashed with the files: a new layout never reuses a snapshot of an older one, even if
 * the files above were to hash alike. Layout 2: postings in item-id order, tails `K#~`, sealed blocks
 * `K#<end>`, directory pages `X#<page>`, doc records `D#<id>/IDX`, counts `STATS/INDEX`.
 */
const LAYOUT = 'index layout 2: doc-id-ordered blocks with block maxima';

function fingerprint(): string {
  const hash = createHash('sha256').update(LAYOUT);
  for (const file of INPUTS) hash.update(file).update(readFileSync(join(ROOT, file)));
  return hash.digest('hex').slice(0, 16);
}

const CACHE = join(ROOT, '.local', 'bench', 'collections', fingerprint());
/** Scratch space for DynamoDB Local's database file: tmpfs when there is one (file mode on disk is ~10× slower). */
const SCRATCH = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const snapshotDir = (size: number) => join(CACHE, String(size));
const databases = (dir: string) => readdirSync(dir).filter((file) => file.endsWith('.db'));

/** DynamoDB Local on a scratch copy of a snapshot (or on an empty database). */
async function openScratch(from: number | undefined): Promise<{ dir: string; dynamodb: DynamoDbLocal }> {
  const dir = mkdtempSync(join(SCRATCH, 'bench-collection-'));
  if (from !== undefined)
    for (const file of databases(snapshotDir(from))) cpSync(join(snapshotDir(from), file), join(dir, file));
  return { dir, dynamodb: await startDynamoDbLocal({ port: await freePort(), dataDir: dir }) };
}

export interface LoadReport {
  size: number;
  records: number;
  reused: boolean;
  /** Seconds the snapshot took to load when it was built (this run or an earlier one). */
  builtSeconds: number;
}

/**
 * Makes sure a snapshot exists for every size; returns what each load took. Loading stops DynamoDB Local before
 * copying, so a snapshot is always a closed database.
 */
export async function prepareCollections(sizes: readonly number[]): Promise<LoadReport[]> {
  const reports: LoadReport[] = [];
  for (const size of [...sizes].sort((a, b) => a - b)) {
    if (existsSync(join(snapshotDir(size), 'load.json'))) {
      const { records, loadSeconds } = JSON.parse(readFileSync(join(snapshotDir(size), 'load.json'), 'utf8'));
      reports.push({ size, records, reused: true, builtSeconds: loadSeconds });
      continue;
    }
    const { dir, dynamodb } = await openScratch(undefined);
    try {
      const raw = localClient(dynamodb.endpoint);
      const { TimeToLiveSpecification: _ttl, StreamSpecification: _stream, ...definition } = tableDefinition;
      await raw.send(new CreateTableCommand({ TableName: TABLE, ...definition }));
      const begin = performance.now();
      const { records } = await bulkLoad(DynamoDBDocumentClient.from(raw), TABLE, size, { concurrency: 4 });
      const loadSeconds = (performance.now() - begin) / 1000;
      raw.destroy();
      await dynamodb.stop();
      const staging = `${snapshotDir(size)}.partial`;
      rmSync(staging, { recursive: true, force: true });
      mkdirSync(staging, { recursive: true });
      for (const file of databases(dir)) cpSync(join(dir, file), join(staging, file));
      writeFileSync(join(staging, 'load.json'), JSON.stringify({ records, loadSeconds }));
      renameSync(staging, snapshotDir(size));
      console.log(`collection ${size}: +${records} records in ${loadSeconds.toFixed(0)} s, saved`);
      reports.push({ size, records, reused: false, builtSeconds: loadSeconds });
    } finally {
      await dynamodb.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return reports;
}

/** Runs `work` against DynamoDB Local serving a scratch copy of the snapshot of each size, all at once. */
export async function withCollections<T>(
  sizes: readonly number[],
  work: (endpoints: Map<number, string>) => Promise<T>,
): Promise<T> {
  const opened: { dir: string; dynamodb: DynamoDbLocal }[] = [];
  try {
    for (const size of sizes) opened.push(await openScratch(size));
    return await work(new Map(sizes.map((size, i) => [size, opened[i]?.dynamodb.endpoint ?? ''])));
  } finally {
    for (const { dir, dynamodb } of opened) {
      await dynamodb.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** The retriever POST /retrieve runs on the collection at `endpoint` (the service's settings, or `options` over them), metered. */
export function collectionRetriever(endpoint: string, options: Partial<SearchOptions> = {}) {
  const { raw, client, meter } = meteredClient(endpoint);
  const table = { client, tableName: TABLE };
  const dictionary = createDictionary(table);
  const items = createItemRepository(table);
  const search = createSearch({ ...table, ...options });
  const retrieve = createRetriever({ search, items, dictionary });
  /** Another retriever on the same metered client, its dictionary with other options (its cache). */
  const withDictionary = (dictionaryOptions: Omit<DictionaryOptions, 'client' | 'tableName'>) =>
    createRetriever({ search, items, dictionary: createDictionary({ ...table, ...dictionaryOptions }) });
  return { raw, meter, dictionary, retrieve, withDictionary };
}

/**
 * One unmeasured pass of the queries on every target, then `passes` passes in which each query goes to every target
 * in rotating order, so drift on this shared machine hits every target alike; `keep` gets each time (ms).
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
        const target = targets[(pass + q + i) % targets.length];
        if (!target) continue;
        const begin = performance.now();
        await run(target, query);
        keep(target, performance.now() - begin);
      }
}
