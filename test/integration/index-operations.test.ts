import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { isItemKey, itemSk } from '../../lib/items/keys.ts';
import { createItemRepository, type ItemRepository } from '../../lib/items/repository.ts';
import type { Item } from '../../lib/items/schema.ts';
import { termFrequencies } from '../../lib/search/format/bm25.ts';
import {
  dfClass,
  docKey,
  isDictionaryTerm,
  LENGTH_INDEX_MIN_LENGTH,
  lengthPartition,
  prefixPartition,
  reversed,
  statsKey,
  TAIL_SK,
  termOfPk,
} from '../../lib/search/format/keys.ts';
import { backfillDictionary } from '../../lib/search/operations/backfill-dictionary.ts';
import type { Progress } from '../../lib/search/operations/progress.ts';
import { CHECKPOINT_KEY, readCheckpoint, rebuildIndex } from '../../lib/search/operations/rebuild.ts';
import { itemText, tokenize } from '../../lib/search/text/tokenizer.ts';
import { createIndexer, type Indexer, stored } from '../../lib/search/write/indexer.ts';
import { createPostingWriter, postingsOf } from '../../lib/search/write/postings.ts';
import { indexChanges } from '../../lib/search/write/stream.ts';
import { deliverBatch, failureRecord, streamSettings } from '../../scripts/local/stream-batches.ts';
import type { FailureRecord } from '../../scripts/redrive.ts';
import { expected, scanAll, snapshot } from '../support/index-state.ts';
import { freshTable, stack } from '../support/stack.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
type Table = Awaited<ReturnType<typeof freshTable>>;

/** `npm run reindex -- …args` against a table of DynamoDB Local. */
function reindex(table: Table, ...args: string[]) {
  const child = spawn(process.execPath, ['scripts/reindex.ts', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: stack.dynamodbEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
}

/** The table's item stream records, per shard, as Lambda delivers them (items only, as the filter pattern). */
async function streamOf({ client, tableName }: Table) {
  const streams = new DynamoDBStreamsClient({
    endpoint: stack.dynamodbEndpoint,
    region: 'us-east-1',
    credentials,
  });
  const { Table: description } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = description?.LatestStreamArn ?? '';
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  const shards: { shardId: string; records: DynamoDBRecord[] }[] = [];
  for (const { ShardId: shardId = '' } of StreamDescription?.Shards ?? []) {
    let { ShardIterator: iterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    const records: _Record[] = [];
    for (let page = 1; iterator && page > 0; ) {
      const reply = await streams.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: streamSettings.batchSize }),
      );
      page = reply.Records?.length ?? 0;
      records.push(...(reply.Records ?? []));
      iterator = reply.NextShardIterator;
    }
    const items = (records as unknown as DynamoDBRecord[]).filter((r) =>
      isItemKey({ pk: r.dynamodb?.Keys?.pk?.S, sk: r.dynamodb?.Keys?.sk?.S }),
    );
    if (items.length > 0) shards.push({ shardId, records: items });
  }
  streams.destroy();
  return { streamArn, shards };
}

const idOf = (record: DynamoDBRecord) => Number(record.dynamodb?.Keys?.sk?.S);

let table: Table;
let items: ItemRepository;
let indexer: Indexer;
const fields = (i: number) => ({
  name: `Lantern ${i}`,
  description: `A camping lantern, model ${i}: ${['brass', 'steel', 'copper', 'glass'][i % 4]} and bright.`,
  tags: ['camping'],
  attributes: {},
});
async function createItems(n: number): Promise<Item[]> {
  const created: Item[] = [];
  for (let i = 1; i <= n; i++) created.push(await items.create(fields(i)));
  return created;
}
/** Which of `ids` the index already has up to date (`reindexItems` then finds nothing to do). */
async function upToDate(ids: number[]): Promise<number[]> {
  const outcomes = await indexer.reindexItems(ids);
  return ids.filter((id) => outcomes.get(id) === 'unchanged');
}

beforeEach(async () => {
  // With its stream: the redrive tests read it back.
  table = await freshTable({ stream: true });
  // One id a lease, so the counter (the progress line's estimate of the total) is the number of items created.
  items = createItemRepository({ ...table, maxLease: 1 });
  indexer = createIndexer({ ...table, items });
});

describe('redrive', { timeout: 120_000 }, () => {
  it("reports the items an invocation had no time for, and Lambda's retry indexes them", async () => {
    const ids = (await createItems(4)).map((item) => item.id);
    const { streamArn, shards } = await streamOf(table);
    const [shard] = shards;
    if (!shard) throw new Error('no shard');
    const invocations: { records: number; failed: number }[] = [];
    await deliverBatch(shard.records, {
      streamArn,
      shardId: shard.shardId,
      settings: streamSettings,
      pause: async () => {},
      handler: async (event, context) => {
        // The first invocation starts with 10 s left, inside the writer's 15 s fence: it may start no pass.
        const left = invocations.length === 0 ? 10_000 : (context?.getRemainingTimeInMillis() ?? 0);
        const reply = await indexChanges(indexer, event.Records, { deadline: Date.now() + left });
        invocations.push({ records: event.Records.length, failed: reply.batchItemFailures.length });
        return reply;
      },
      onFailure: () => {
        throw new Error('the batch was given up');
      },
    });
    expect(invocations).toStrictEqual([
      { records: 4, failed: 4 },
      { records: 4, failed: 0 },
    ]);
    expect(await upToDate(ids)).toStrictEqual(ids);
  });

  it('--ids reindexes exactly the named items', async () => {
    const [a, b, c, d] = await createItems(4);
    if (!a || !b || !c || !d) throw new Error('items not created');
    await indexer.reindexItems([a.id, b.id, c.id, d.id]);
    // Out of step: three items change and one is deleted with no consumer running.
    for (const item of [a, b, c])
      await items.update(item.id, () => ({ ...fields(9), name: `Changed ${item.id}` }));
    await items.delete(d.id);
    const run = await reindex(table, '--ids', `${a.id},${b.id},${d.id}`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 indexed, 1 removed from the index, 0 already up to date');
    expect(await upToDate([a.id, b.id, c.id, d.id])).toStrictEqual([a.id, b.id, d.id]);
  });

  it('--failure reads a failed batch back from the stream and repairs the items in its range', async () => {
    const created = await createItems(5);
    const { streamArn, shards } = await streamOf(table);
    expect(shards).toHaveLength(1);
    const [shard] = shards;
    if (!shard) throw new Error('no shard');
    // A failure record (as Lambda sends it to the queue) for the middle three items' records.
    const range = shard.records.slice(1, 4);
    const record = failureRecord(
      range,
      { streamArn, shardId: shard.shardId },
      { invokeCount: 11, functionError: true },
    );
    const dir = await mkdtemp(join(tmpdir(), 'redrive-'));
    await writeFile(join(dir, 'failure.json'), JSON.stringify(record, null, 2));
    const run = await reindex(table, '--failure', join(dir, 'failure.json'));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const inRange = range.map(idOf);
    expect(run.stdout).toContain(`items ${inRange.join(', ')}: 3 indexed`);
    expect(await upToDate(created.map((item) => item.id))).toStrictEqual(inRange);
  });

  it('--failure says when the stream no longer has the records, and points to the full reindex', async () => {
    await createItems(2);
    const { streamArn, shards } = await streamOf(table);
    const record = failureRecord(
      shards[0]?.records ?? [],
      { streamArn, shardId: 'shardId-00000000000000000000-00000000' },
      { invokeCount: 11, functionError: true },
    );
    const dir = await mkdtemp(join(tmpdir(), 'redrive-'));
    await writeFile(join(dir, 'failures.jsonl'), `${JSON.stringify(record)}\n`);
    const run = await reindex(table, '--failure', join(dir, 'failures.jsonl'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/its stream records are gone \(ResourceNotFoundException/);
    expect(run.stderr).toContain('Run the full `npm run reindex`');
  });

  it('a batch the consumer gives up on is isolated by bisection, recorded, and repaired from its record', async () => {
    const created = await createItems(6);
    const poison = created[3]?.id ?? 0;
    const { streamArn, shards } = await streamOf(table);
    const [shard] = shards;
    if (!shard) throw new Error('no shard');
    const batches: number[][] = [];
    const failures: FailureRecord[] = [];
    await deliverBatch(shard.records, {
      streamArn,
      shardId: shard.shardId,
      settings: streamSettings,
      pause: async () => {},
      // The real handler's work, on this table; one item makes the invocation fail every time.
      handler: async (event) => {
        batches.push(event.Records.map(idOf));
        if (event.Records.some((r) => r.dynamodb?.Keys?.sk?.S === itemSk(poison))) throw new Error('poison');
        return indexChanges(indexer, event.Records);
      },
      onFailure: (record) => {
        failures.push(record);
      },
    });
    const poisonRecord = shard.records.find((r) => idOf(r) === poison);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.requestContext?.approximateInvokeCount).toBe(streamSettings.maximumRetryAttempts + 1);
    expect(failures[0]?.DDBStreamBatchInfo).toMatchObject({
      shardId: shard.shardId,
      streamArn,
      startSequenceNumber: poisonRecord?.dynamodb?.SequenceNumber,
      endSequenceNumber: poisonRecord?.dynamodb?.SequenceNumber,
      batchSize: 1,
    });
    // Everything else was indexed once the poison item was split off.
    expect(batches.filter((batch) => batch.length === 1 && batch[0] === poison)).toHaveLength(
      streamSettings.maximumRetryAttempts + 1,
    );
    const others = created.map((item) => item.id).filter((id) => id !== poison);
    expect(await upToDate(others)).toStrictEqual(others);

    const dir = await mkdtemp(join(tmpdir(), 'redrive-'));
    await writeFile(
      join(dir, 'index-failures.jsonl'),
      failures.map((f) => `${JSON.stringify(f)}\n`).join(''),
    );
    const run = await reindex(table, '--failure', join(dir, 'index-failures.jsonl'));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`items ${poison}: 1 indexed`);
    expect(await upToDate(created.map((item) => item.id))).toStrictEqual(created.map((item) => item.id));
  });
});

/** The real indexer, counting its batches; from batch `crashAfter + 1` on every call fails, as a crashed run. */
function crashingIndexer(real: Indexer, crashAfter = Number.POSITIVE_INFINITY) {
  const batches: number[][] = [];
  const crashed = () => batches.length > crashAfter;
  const crash = () => Promise.reject(new Error('simulated crash'));
  const wrapped: Indexer = {
    reindexItem: (id) => (crashed() ? crash() : real.reindexItem(id)),
    reindexItems: (ids) => {
      batches.push([...ids]);
      return crashed() ? crash() : real.reindexItems(ids);
    },
    compact: (atLeast) => (crashed() ? crash() : real.compact(atLeast)),
    counts: real.counts,
  };
  return { indexer: wrapped, batches };
}

describe('npm run reindex after the analysis changed, and its dictionary pass', { timeout: 180_000 }, () => {
  /**
   * The index an analysis of stems alone (no exact forms) gives, written in today's format: how a reindex finds an
   * index after the analysis changed. Its tails without a df class, as a removal from a sealed block leaves them.
   */
  async function writeStemsOnlyIndex(created: Item[]) {
    const writer = createPostingWriter(table);
    let len = 0;
    for (const item of created) {
      const tokens = tokenize(itemText(item));
      const old = {
        version: item.version,
        dl: tokens.length,
        norm: tokens.length,
        terms: Object.fromEntries(termFrequencies(tokens)),
        cut: {},
      };
      len += old.dl;
      await writer.add([...postingsOf(item.id, old).values()]);
      const record = { ...docKey(item.id), ...stored(old), rev: 1 };
      await table.client.send(new PutCommand({ TableName: table.tableName, Item: record }));
    }
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...statsKey(0), docs: created.length, len, commits: 1 },
      }),
    );
    await stripClasses();
  }
  /** Each tail without its df class, as a removal from a sealed block leaves it (sealed-part.ts `tailUpdate`). */
  async function stripClasses() {
    for (const row of (await scanAll(table)).filter((r) => r.sk === TAIL_SK))
      await table.client.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk: row.pk, sk: TAIL_SK },
          UpdateExpression: 'REMOVE wf',
        }),
      );
  }
  /** Every dictionary term's tail with its entry (in each index its length reaches) and class, no exact form's. */
  async function expectClasses() {
    const tails = (await scanAll(table)).filter((r) => r.sk === TAIL_SK && Number(r.df) > 0);
    expect(tails.length).toBeGreaterThan(10);
    // The items' model numbers: terms of one code point, in neither index.
    expect(tails.some((tail) => [...(termOfPk(tail.pk) ?? '')].length === 1)).toBe(true);
    for (const tail of tails) {
      const term = termOfPk(tail.pk) ?? '';
      const length = [...term].length;
      const [typos, prefixes] = [length >= LENGTH_INDEX_MIN_LENGTH, length >= 2];
      expect([tail.wt, tail.wf, tail.wr, tail.wl, tail.wp], term).toStrictEqual(
        isDictionaryTerm(term)
          ? [
              term,
              dfClass(Number(tail.df)),
              typos ? reversed(term) : undefined,
              typos ? lengthPartition(length) : undefined,
              prefixes ? prefixPartition(term) : undefined,
            ]
          : [undefined, undefined, undefined, undefined, undefined],
      );
    }
  }

  it('the full reindex rebuilds an index of another analysis into what a fresh build gives', async () => {
    const created = await createItems(5);
    await writeStemsOnlyIndex(created);
    // Each item is at its version, but indexed by another analysis: none is up to date.
    expect((await snapshot(table)).postings.some((p) => p.startsWith('=camping:'))).toBe(false);
    const run = await reindex(table, '--page-size', '2');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Reindexed 5 items in test-\S+ .*; \d+ dictionary entries written\.$/m);
    const { postings, df, stats } = await snapshot(table);
    expect({ postings, df, stats }).toStrictEqual(expected(created));
    expect(postings.some((p) => p.startsWith('=camping:'))).toBe(true);
    await expectClasses();
    const ids = created.map((item) => item.id);
    expect(await upToDate(ids)).toStrictEqual(ids);
  });

  it('--dictionary puts back the df classes of an index whose tails have none, and says how many', async () => {
    const created = await createItems(5);
    await indexer.reindexItems(created.map((item) => item.id));
    await stripClasses();
    const run = await reindex(table, '--dictionary');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^Term dictionary of test-\S+: \d+ of \d+ terms' entries written \(\d+ ms\)\.$/m,
    );
    expect(run.stderr).toMatch(/^dictionary: \d+ terms seen, \d+ entries written$/m);
    await expectClasses();
    const again = await reindex(table, '--dictionary');
    expect(again.stdout).toMatch(/: 0 of \d+ terms' entries written/);
  });

  it('--dictionary gives a tail of few sealed blocks that lists no directory its copy, exactly', async () => {
    const created = await createItems(16);
    await createIndexer({ ...table, items, blockCapacity: 3 }).reindexItems(created.map((item) => item.id));
    const sealedTails = async () =>
      (await scanAll(table)).filter((r) => r.sk === TAIL_SK && Number(r.lo) > 0);
    const listing = (await sealedTails()).filter((r) => r.d !== undefined).map((r) => String(r.pk));
    // Some terms have few blocks (a metal: 4 items), some too many to list (lantern: 16 items, 5 blocks of 3).
    expect(listing.length).toBeGreaterThan(0);
    expect((await sealedTails()).length).toBeGreaterThan(listing.length);
    // As tails whose terms had more blocks than a tail lists, and lost them: none lists its directory.
    for (const pk of listing)
      await table.client.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: { pk, sk: TAIL_SK },
          UpdateExpression: 'REMOVE d',
        }),
      );
    expect(await backfillDictionary({ ...table, blockCapacity: 3 })).toMatchObject({
      entries: listing.length,
    });
    const listed = (await sealedTails()).filter((r) => r.d !== undefined).map((r) => String(r.pk));
    expect(listed.sort()).toStrictEqual(listing.sort());
    // Each copy is exactly what the pages hold (checkTerms), and a second run finds nothing to do.
    await snapshot(table, 3);
    expect(await backfillDictionary({ ...table, blockCapacity: 3 })).toMatchObject({ entries: 0 });
  });
});

describe('npm run reindex at scale', { timeout: 180_000 }, () => {
  it('resumes after a crash from its checkpoint, skipping the items done, and ends with the index up to date', async () => {
    const created = await createItems(24);
    // Out of step: a deleted item still has its index records; nothing else is indexed.
    const gone = created[4]?.id ?? 0;
    await indexer.reindexItems([gone]);
    await items.delete(gone);
    const ids = created.map((item) => item.id).filter((id) => id !== gone);

    // Pages of 4, 2 at a time; the 4th batch and all after it fail.
    const first = crashingIndexer(indexer, 3);
    await expect(
      rebuildIndex({ ...table, indexer: first.indexer, pageSize: 4, concurrency: 2 }),
    ).rejects.toThrow('simulated crash');
    // Pages 1-3 completed: the checkpoint is past them, and not past the failed page 4.
    expect(first.batches.slice(0, 3)).toStrictEqual([ids.slice(0, 4), ids.slice(4, 8), ids.slice(8, 12)]);
    expect(await readCheckpoint(table.client, table.tableName)).toStrictEqual({
      throughId: ids[11],
      items: 12,
    });

    const second = crashingIndexer(indexer);
    const progress: Progress[] = [];
    let phaseOne = 0;
    const report = await rebuildIndex({
      ...table,
      indexer: second.indexer,
      pageSize: 4,
      concurrency: 2,
      onProgress: (p) => {
        progress.push(p);
        if (p.final) phaseOne = second.batches.length;
      },
    });
    expect(report).toMatchObject({ resumedAfter: ids[11], items: 11, removed: 1, invalid: 0 });
    // The resumed run indexed exactly the ids after the checkpoint, none before it.
    expect(second.batches.slice(0, phaseOne).flat()).toStrictEqual(ids.slice(12));
    expect(progress.at(-1)).toMatchObject({ done: 24 - 1, total: 23, final: true });
    // After each page (in whatever order pages finish) and at the end: counting on from the 12 done before.
    const done = progress.map((p) => p.done);
    expect(done).toHaveLength(4);
    expect(done.every((n, i) => n > 12 && (i === 0 || n >= (done[i - 1] ?? 0)))).toBe(true);
    expect(await readCheckpoint(table.client, table.tableName)).toBeUndefined();
    expect(await upToDate([...ids, gone])).toStrictEqual([...ids, gone]);
  });

  it('starts from the first item with --restart, whatever the checkpoint says', async () => {
    const created = await createItems(5);
    const ids = created.map((item) => item.id);
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...CHECKPOINT_KEY, throughId: ids[3], items: 4 },
      }),
    );
    const run = crashingIndexer(indexer);
    const report = await rebuildIndex({ ...table, indexer: run.indexer, pageSize: 2, restart: true });
    expect(report).toMatchObject({ resumedAfter: undefined, items: 5 });
    expect(run.batches.slice(0, 3).flat()).toStrictEqual(ids);
    expect(await upToDate(ids)).toStrictEqual(ids);
  });

  it('shows progress on stderr: items done, items per second and time left', async () => {
    const created = await createItems(5);
    const run = await reindex(table, '--concurrency', '2', '--page-size', '2');
    expect(run.code).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toMatch(
      /^reindex: [1-5] of ~5 items \(\d+%\), \d+ items\/s, (~\d+s left|time left unknown)$/,
    );
    expect(lines.at(-1)).toMatch(/^reindex: 5 of ~5 items \(100%\), \d+ items\/s, done$/);
    expect(run.stdout).toMatch(/^Reindexed 5 items in test-/);
    const ids = created.map((item) => item.id);
    expect(await upToDate(ids)).toStrictEqual(ids);
  });
});
