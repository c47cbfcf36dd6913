// The bound between the index's counts and its postings, over HTTP (docs/search.md, "Counts and postings"):
// BURST_ITEMS creates (200 in `npm test`, 1,000 in `npm run test:soak`) from 8 clients, while a reader takes
// snapshots of the table, each one TransactGetItems (so one moment): the counts, the home of a word every burst item
// holds, and for a sample of the items their doc record and the home of a word of their own. At every snapshot the
// items whose postings show are never fewer than the counts say (no count before its postings); a sampled item's
// postings show exactly when its doc record is committed, unless it is in flight (written ahead, not committed); and
// the items in flight belong to at most one pass per writer of the stream.
import { randomBytes } from 'node:crypto';
import { TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { docKey, STATS_SHARDS, statsKey, sumCounts, tailKey } from '../../lib/search/format/keys.ts';
import { tokenize } from '../../lib/search/text/tokenizer.ts';
import { DocSchema } from '../../lib/search/write/doc-record.ts';
import { streamSettings } from '../../scripts/local/stream-batches.ts';
import { envCount, httpClient, pool } from '../hardening/http.ts';
import { documentClient, stack, tokenFor } from '../support/stack.ts';

const ITEMS = envCount('BURST_ITEMS', 200);
const CLIENTS = 8;
/** TransactGetItems reads 100 keys at most: the counts' parts, the shared word's home, two keys a sampled item. */
const SAMPLED = Math.floor((100 - STATS_SHARDS - 1) / 2);
const request = httpClient(stack.baseUrl);
const editor = tokenFor('editor');
const client = documentClient();

/** A word no other item contains, as the index stores it (letters and digits: never stemmed). */
const uniqueTerm = () => tokenize(`q8${randomBytes(6).toString('hex')}`)[0] ?? '';
const shared = uniqueTerm();
const VOCABULARY = ['trail', 'boot', 'rain', 'jacket', 'lamp', 'rope', 'tent', 'stove', 'map', 'compass'];

type Sampled = { id: number; term: string };

/** One moment of the table: the counts, the burst items whose postings show, and each sampled item's state. */
async function snapshot(sampled: readonly Sampled[]) {
  const keys = [
    ...Array.from({ length: STATS_SHARDS }, (_, part) => statsKey(part)),
    tailKey(shared),
    ...sampled.flatMap(({ id, term }) => [docKey(id), tailKey(term)]),
  ];
  const { Responses = [] } = await client.send(
    new TransactGetCommand({
      TransactItems: keys.map((Key) => ({ Get: { TableName: stack.tableName, Key } })),
    }),
  );
  const rows = Responses.map((response) => response.Item);
  const df = (row: Record<string, unknown> | undefined) => Number(row?.df ?? 0);
  return {
    counts: sumCounts(rows.slice(0, STATS_SHARDS).flatMap((row) => (row ? [row] : []))),
    shown: df(rows[STATS_SHARDS]),
    items: sampled.map(({ id }, i) => {
      const row = rows[STATS_SHARDS + 1 + 2 * i];
      const doc = row && v.parse(DocSchema, row);
      return {
        id,
        shown: df(rows[STATS_SHARDS + 2 + 2 * i]) > 0,
        committed: (doc?.version ?? 0) > 0,
        inFlight: (doc?.pending ?? []).length > 0,
        owner: row?.leaseOwner as string | undefined,
      };
    }),
  };
}

/** Waits until no commit has landed for 3 s (what earlier files wrote is indexed); returns N then. */
async function quietN(): Promise<number> {
  const still = { since: Date.now(), commits: -1, docs: 0 };
  while (Date.now() - still.since < 3_000) {
    const { counts } = await snapshot([]);
    if (counts.commits !== still.commits)
      Object.assign(still, { since: Date.now(), commits: counts.commits });
    still.docs = counts.docs;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return still.docs;
}

/** The burst's item `i`: the shared word, a few common ones, and a word of its own if it is sampled. */
const itemBody = (i: number, own: string | undefined) => ({
  name: `Burst ${shared} ${VOCABULARY[i % VOCABULARY.length]}`,
  description: [
    shared,
    own,
    ...Array.from({ length: 6 }, (_, k) => VOCABULARY[(i * 7 + k * 3) % VOCABULARY.length]),
  ]
    .filter(Boolean)
    .join(' '),
});

/** The reader's figures: snapshots taken, those with postings ahead of the counts, and the widest gap seen. */
const seen = { snapshots: 0, ahead: 0, widest: 0, passes: 0 };

/** Checks one snapshot against the bound (N0: the counts' N before the burst). */
function check(moment: Awaited<ReturnType<typeof snapshot>>, n0: number) {
  const gap = moment.shown - (moment.counts.docs - n0);
  expect(gap, 'burst items whose postings show, less those the counts hold').toBeGreaterThanOrEqual(0);
  for (const item of moment.items)
    if (!item.inFlight)
      expect(item.shown, `item ${item.id}, not in flight: postings iff committed`).toBe(item.committed);
  const passes = new Set(moment.items.flatMap((item) => (item.inFlight && item.owner ? [item.owner] : [])))
    .size;
  expect(passes, 'passes holding sampled items in flight').toBeLessThanOrEqual(
    streamSettings.parallelizationFactor,
  );
  seen.snapshots++;
  if (gap > 0) seen.ahead++;
  seen.widest = Math.max(seen.widest, gap);
  seen.passes = Math.max(seen.passes, passes);
}

describe('the counts and the postings during a burst of creates', () => {
  it(`keeps the counts within the passes in flight of the postings, at every moment of ${ITEMS} creates`, {
    timeout: 180_000 + ITEMS * 200,
  }, async () => {
    const n0 = await quietN();
    const every = Math.max(1, Math.floor(ITEMS / SAMPLED));
    const sampled: Sampled[] = [];
    const burst = { done: false };
    const created = pool(
      CLIENTS,
      Array.from({ length: ITEMS }, (_, i) => async () => {
        const own = i % every === 0 && i / every < SAMPLED ? uniqueTerm() : undefined;
        const reply = await request('POST', '/items', { token: editor, body: itemBody(i, own) });
        expect(reply.status).toBe(201);
        if (own) sampled.push({ id: (reply.body as { id: number }).id, term: own });
      }),
    ).finally(() => {
      burst.done = true;
    });
    // Until the burst is in and the index has caught up with it.
    const deadline = Date.now() + 120_000 + ITEMS * 100;
    for (;;) {
      const moment = await snapshot(sampled);
      check(moment, n0);
      if (burst.done && moment.shown === ITEMS && moment.counts.docs - n0 === ITEMS) break;
      expect(Date.now(), 'the index caught up with the burst').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await created;
    expect(sampled).toHaveLength(SAMPLED);
    expect(seen.ahead, 'snapshots that caught postings ahead of the counts').toBeGreaterThan(0);
  });
});
