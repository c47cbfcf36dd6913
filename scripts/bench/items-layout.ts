// `npm run bench:items-layout -- <a checkout of the code before the shards, with its node_modules>`: the items'
// database work side by side, in one process against one DynamoDB Local: that tree's repository (pk ITEM, one ADD on
// the counter a create) on a table of its own, against this tree's (64 shards, ids leased in blocks) on a migrated
// table and on one not yet migrated (the reads also look at the old keys). Each table holds ITEMS items; blocks of
// BLOCK calls, the variants alternating block by block. Per variant: create p50 (one item), list page p50 (limit 100,
// consistent, after a random id) and read units per list page (DynamoDB's ReturnConsumedCapacity, consistent reads).
import { resolve } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lib/dynamodb/client.ts';
import { LAYOUT_KEY } from '../../lib/items/keys.ts';
import { createItemRepository } from '../../lib/items/repository.ts';
import { ensureTable, localClient } from '../local/dynamodb.ts';
import { median, quantile, startLocalService } from './common.ts';

const other = resolve(process.argv[2] ?? '');
const ITEMS = Number(process.env.BENCH_ITEMS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BLOCK = 50;
const fields = {
  name: 'Trail Boot',
  description: 'Waterproof hiking boot',
  tags: ['outdoor'],
  attributes: { a: 1 },
};

interface Repo {
  create(f: typeof fields): Promise<{ id: number }>;
  list(o: { limit: number; afterId?: number }): Promise<{ items: unknown[] }>;
}

/** Counts the read units every command of a client reports (it asks each for them). */
function metered(client: DynamoDBDocumentClient) {
  const meter = { rcu: 0 };
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity = 'TOTAL';
      const out = await next(args);
      const consumed = (out.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity;
      meter.rcu += consumed?.CapacityUnits ?? 0;
      return out;
    },
    { step: 'initialize', name: 'meterReads' },
  );
  return meter;
}

const { createItemRepository: createOther } = (await import(`${other}/lib/items/repository.ts`)) as {
  createItemRepository: (o: { client: DynamoDBDocumentClient; tableName: string }) => Repo;
};
const commit = (await import('node:child_process'))
  .execSync('git rev-parse --short HEAD', { cwd: other, encoding: 'utf8' })
  .trim();
const service = await startLocalService('items-before');
try {
  const raw = localClient(service.endpoint);
  for (const table of ['items-after', 'items-migrating']) await ensureTable(raw, table);
  raw.destroy();
  const variant = (label: string, tableName: string, make: (c: DynamoDBDocumentClient) => Repo) => {
    const client = createDocumentClient({ region: 'us-east-1', endpoint: service.endpoint });
    return { label, client, meter: metered(client), repo: make(client), tableName };
  };
  const variants = [
    variant(`before (${commit})`, 'items-before', (client) =>
      createOther({ client, tableName: 'items-before' }),
    ),
    variant('after (this tree)', 'items-after', (client) =>
      createItemRepository({ client, tableName: 'items-after' }),
    ),
    variant('after, not yet migrated', 'items-migrating', (client) =>
      createItemRepository({ client, tableName: 'items-migrating' }),
    ),
  ];
  await variants[1]?.client.send(new PutCommand({ TableName: 'items-after', Item: { ...LAYOUT_KEY } }));
  for (const v of variants)
    for (let i = 0; i < ITEMS; i += 20)
      await Promise.all(Array.from({ length: 20 }, () => v.repo.create(fields)));
  const times = new Map(
    variants.map((v) => [v.label, { create: [] as number[], list: [] as number[], rcu: [] as number[] }]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const v of round % 2 ? [...variants].reverse() : variants) {
      const t = times.get(v.label);
      if (!t) continue;
      for (let i = 0; i < BLOCK; i++) {
        const begin = performance.now();
        await v.repo.create(fields);
        t.create.push(performance.now() - begin);
      }
      for (let i = 0; i < BLOCK; i++) {
        const afterId = Math.floor(Math.random() * (ITEMS - 100));
        const before = v.meter.rcu;
        const begin = performance.now();
        const page = await v.repo.list({ limit: 100, ...(afterId > 0 ? { afterId } : {}) });
        t.list.push(performance.now() - begin);
        t.rcu.push(v.meter.rcu - before);
        if (page.items.length !== 100) throw new Error(`${v.label}: a page of ${page.items.length}`);
      }
    }
  }
  const base = times.get(variants[0]?.label ?? '');
  console.log(`| variant | create p50 (ms) | × | list page p50 (ms) | × | list p90 (ms) | RCU per page |`);
  console.log('|---|---|---|---|---|---|---|');
  for (const [label, t] of times) {
    const ratio = (a: number[], b: number[] | undefined) => (b ? (median(a) / median(b)).toFixed(2) : '');
    const mean = t.rcu.reduce((a, b) => a + b, 0) / t.rcu.length;
    console.log(
      `| ${label} | ${median(t.create).toFixed(2)} | ${ratio(t.create, base?.create)} | ${median(t.list).toFixed(2)} | ${ratio(t.list, base?.list)} | ${quantile(t.list, 0.9).toFixed(2)} | ${mean.toFixed(1)} |`,
    );
  }
  console.log(
    `\n${ITEMS} items a table, ${ROUNDS} rounds of ${BLOCK} creates and ${BLOCK} list pages per variant.`,
  );
} finally {
  await service.stop();
}
