// `npm run bench:edits`: the index's read and write units for an edit of an older item, made alone, when the items'
// ids lie in one directory page and when they spread over several. bench:ingest's Cranfield ids all fall in page 0
// (keys.ts `pageOf`: 16,384 ids a page), where a term's sealed blocks share one key; a service that has leased ids
// for a while holds items whose blocks end in many pages, and an edit must find each term's block among them.
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createItemRepository } from '../../lib/items/repository.ts';
import { leaseIds } from '../../lib/items/writer.ts';
import { pageOf } from '../../lib/search/format/keys.ts';
import { createIndexer } from '../../lib/search/write/indexer.ts';
import { localClient } from '../local/dynamodb.ts';
import { createMeter, meterClient, metered } from './capacity.ts';
import { fmt, tableOf, writeResult } from './common.ts';
import { cranfieldWrite, editOf, loadCranfield, revised } from './cranfield.ts';
import { withDynamoDb } from './service.ts';

/** Ids skipped before each item is created (a lease another container took and never used): 0, and 47 (5 pages). */
const GAPS = (process.env.BENCH_EDIT_GAPS ?? '0,47').split(',').map(Number);
/** Every EDIT_EVERY-th item is edited: 50 of Cranfield's 1,400. */
const EDIT_EVERY = 28;
const { docs } = await loadCranfield();

const tableOfGap = (gap: number) => `edits-gap-${gap}`;

/** Cranfield created with `gap` ids skipped before each item, indexed, then every EDIT_EVERY-th edited alone. */
async function run(endpoint: string, gap: number) {
  const tableName = tableOfGap(gap);
  const base = DynamoDBDocumentClient.from(localClient(endpoint));
  const items = createItemRepository({ client: base, tableName, maxLease: 1 });
  const skip = leaseIds({ client: base, tableName });
  const ids: number[] = [];
  for (const doc of docs) {
    if (gap > 0) await skip(gap);
    ids.push((await items.create(cranfieldWrite(doc))).id);
  }
  const meter = createMeter();
  const raw = localClient(endpoint);
  meterClient(raw, meter);
  const client = DynamoDBDocumentClient.from(raw);
  const indexer = createIndexer({ client, tableName, items: createItemRepository({ client, tableName }) });
  for (let i = 0; i < ids.length; i += 100) await indexer.reindexItems(ids.slice(i, i + 100));
  const edited = ids.filter((_, i) => i % EDIT_EVERY === 0);
  const revise = editOf(items, revised);
  const { tally } = await metered(meter, async () => {
    for (const id of edited) {
      await revise(id);
      await indexer.reindexItems([id]);
    }
  });
  base.destroy();
  raw.destroy();
  const per = (n: number) => n / edited.length;
  const lastId = ids.at(-1) ?? 0;
  const [rcu, wcu, calls] = [per(tally.rcu), per(tally.wcu), per(tally.calls)];
  return { gap, lastId, pages: pageOf(lastId) + 1, edits: edited.length, rcu, wcu, calls };
}

type Run = Awaited<ReturnType<typeof run>>;
const COLUMNS: [string, (r: Run) => string][] = [
  ['ids skipped before each item', (r) => fmt(r.gap, 0)],
  ['last id (directory pages)', (r) => `${fmt(r.lastId, 0)} (${r.pages})`],
  ['edits', (r) => fmt(r.edits, 0)],
  ['index RCU an edit', (r) => fmt(r.rcu)],
  ['index WCU an edit', (r) => fmt(r.wcu)],
  ['DynamoDB calls an edit', (r) => fmt(r.calls)],
];

const runs = await withDynamoDb(GAPS.map(tableOfGap), async ({ endpoint }) => {
  const done: Run[] = [];
  for (const gap of GAPS) done.push(await run(endpoint, gap));
  return done;
});
const markdown = `${tableOf(COLUMNS, runs)}

Cranfield's 1,400 items, indexed in batches of 100, then every ${EDIT_EVERY}th edited (a sentence appended) and indexed
before the next edit; units by AWS's rules for what the index's requests read and wrote (the item's own write not
counted).`;
console.log(markdown);
writeResult('edits', markdown, { runs });
process.exit(0);
