// Synthetic collections for `npm run bench:scale`, loaded once and kept. Each size is built from scratch in
// memory (items, doc records and posting blocks exactly as the repository and the indexer leave them) and
// written to DynamoDB Local, then saved under .local/bench/collections/ keyed by a fingerprint of every file that
// decides what the records are. A later run reuses the snapshots; changing the generator, the tokenizer or the
// record layout changes the fingerprint and reloads.
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
import { type DynamoDbLocal, localClient, startDynamoDbLocal, tableDefinition } from '../local/dynamodb.ts';
import { freePort } from '../local/ports.ts';
import { ROOT } from './common.ts';
import { bulkLoad } from './synthetic.ts';

export const COLLECTION_TABLE = 'items-bench';

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

export function fingerprint(): string {
  const hash = createHash('sha256').update(LAYOUT);
  for (const file of INPUTS) hash.update(file).update(readFileSync(join(ROOT, file)));
  return hash.digest('hex').slice(0, 16);
}

const CACHE = join(ROOT, '.local', 'bench', 'collections', fingerprint());
/** Scratch space for DynamoDB Local's database file: tmpfs when there is one (file mode on disk is ~10× slower). */
const SCRATCH = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

const snapshotDir = (size: number) => join(CACHE, String(size));
const isSnapshot = (size: number) => existsSync(join(snapshotDir(size), 'load.json'));

/** DynamoDB Local on a scratch copy of a snapshot (or on an empty database). */
async function openScratch(from: number | undefined): Promise<{ dir: string; dynamodb: DynamoDbLocal }> {
  const dir = mkdtempSync(join(SCRATCH, 'bench-collection-'));
  if (from !== undefined) {
    for (const file of readdirSync(snapshotDir(from)).filter((f) => f.endsWith('.db'))) {
      cpSync(join(snapshotDir(from), file), join(dir, file));
    }
  }
  return { dir, dynamodb: await startDynamoDbLocal({ port: await freePort(), dataDir: dir }) };
}

export interface LoadReport {
  size: number;
  /** Seconds spent loading this size (0 when the snapshot was reused), and the records it added. */
  loadSeconds: number;
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
    if (isSnapshot(size)) {
      const { records, loadSeconds } = JSON.parse(readFileSync(join(snapshotDir(size), 'load.json'), 'utf8'));
      reports.push({ size, loadSeconds: 0, records, reused: true, builtSeconds: loadSeconds });
      continue;
    }
    const { dir, dynamodb } = await openScratch(undefined);
    try {
      const raw = localClient(dynamodb.endpoint);
      const client = DynamoDBDocumentClient.from(raw);
      const { TimeToLiveSpecification: _ttl, StreamSpecification: _stream, ...definition } = tableDefinition;
      await raw.send(new CreateTableCommand({ TableName: COLLECTION_TABLE, ...definition }));
      const begin = performance.now();
      const { records } = await bulkLoad(client, COLLECTION_TABLE, size, { concurrency: 4 });
      const loadSeconds = (performance.now() - begin) / 1000;
      raw.destroy();
      await dynamodb.stop();
      const staging = `${snapshotDir(size)}.partial`;
      rmSync(staging, { recursive: true, force: true });
      mkdirSync(staging, { recursive: true });
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.db')))
        cpSync(join(dir, file), join(staging, file));
      writeFileSync(join(staging, 'load.json'), JSON.stringify({ records, loadSeconds }));
      renameSync(staging, snapshotDir(size));
      console.log(`collection ${size}: +${records} records in ${loadSeconds.toFixed(0)} s, saved`);
      reports.push({ size, loadSeconds, records, reused: false, builtSeconds: loadSeconds });
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
    const endpoints = new Map<number, string>();
    for (const size of sizes) {
      const scratch = await openScratch(size);
      opened.push(scratch);
      endpoints.set(size, scratch.dynamodb.endpoint);
    }
    return await work(endpoints);
  } finally {
    for (const { dir, dynamodb } of opened) {
      await dynamodb.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
