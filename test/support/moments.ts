import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { expect } from 'vitest';
import { decodeBlock } from '../../lib/search/format/blocks.ts';
import {
  idOfDocKey,
  STATS_PK,
  shrunkOf,
  sumCounts,
  termOfPk,
  termRows,
} from '../../lib/search/format/keys.ts';
import { DocSchema } from '../../lib/search/write/doc-record.ts';
import { intercepting } from './index-state.ts';

// A reader's view of the index while writers work on it: the bound between counts and postings (docs/search.md,
// "Counts and postings") checked at moments taken between the writers' calls.

/**
 * Writers' calls and a reader's looks never at once: a call holds the gate beside other calls; a look waits for the
 * calls in flight to land, holds back new ones while it reads, and so sees the table as it stood at one moment.
 */
export class Gate {
  private calls = 0;
  private look: Promise<void> | undefined;
  private drained: (() => void) | undefined;

  /** `client` with every call made through the gate. */
  client(client: DynamoDBDocumentClient): DynamoDBDocumentClient {
    return intercepting(client, async (command, send) => {
      while (this.look) await this.look;
      this.calls++;
      try {
        return await send(command);
      } finally {
        this.calls--;
        if (this.calls === 0) this.drained?.();
      }
    });
  }

  /** Runs `read` once no call is in flight, with new calls held until it is done. */
  async alone<T>(read: () => Promise<T>): Promise<T> {
    while (this.look) await this.look;
    let done = () => {};
    this.look = new Promise((resolve) => {
      done = resolve;
    });
    try {
      if (this.calls > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      return await read();
    } finally {
      this.drained = undefined;
      this.look = undefined;
      done();
    }
  }
}

/** Each item's postings as `term:tf:dl`, sorted, by id. */
function postingsById(rows: readonly Record<string, unknown>[]): Map<number, string[]> {
  const byId = new Map<number, string[]>();
  for (const row of rows.flatMap(termRows)) {
    if (!String(row.sk).startsWith('K#')) continue;
    const term = termOfPk(row.pk) ?? '';
    for (const p of decodeBlock(row.p))
      byId.set(p.id, [...(byId.get(p.id) ?? []), `${term}:${p.tf}:${p.dl}`]);
  }
  for (const list of byId.values()) list.sort();
  return byId;
}

/**
 * The bound a reader relies on, at one moment (`rows`: the whole table): the counts are exactly the committed doc
 * records' (items, length, shrunk-set entries), and every item whose postings are not its committed state's is one
 * a writer has written ahead (`pending`) and not committed. So N and each df differ from what the postings say by at
 * most the items of the passes in flight. Returns those items, and the passes (lease owners) holding them.
 */
export function checkMoment(rows: readonly Record<string, unknown>[]) {
  const docs = rows.flatMap((row) => {
    const id = idOfDocKey(row.pk, row.sk);
    return id === undefined ? [] : [{ id, ...v.parse(DocSchema, row), leaseOwner: row.leaseOwner }];
  });
  const committed = docs.filter((doc) => doc.version > 0);
  const counts = sumCounts(rows.filter((row) => row.pk === STATS_PK));
  expect(counts.docs, 'N: the committed doc records').toBe(committed.length);
  expect(counts.len, 'the total length: the committed doc records’').toBe(
    committed.reduce((sum, doc) => sum + doc.dl, 0),
  );
  expect(counts.shrunkEntries, 'the shrunk set’s entries').toBe(shrunkOf(rows).length);
  const inFlight = new Set(docs.filter((doc) => (doc.pending ?? []).length > 0).map((doc) => doc.id));
  const settled = new Map(docs.map((doc) => [doc.id, doc]));
  const postings = postingsById(rows);
  for (const id of new Set([...postings.keys(), ...settled.keys()])) {
    if (inFlight.has(id)) continue;
    const doc = settled.get(id);
    const want = Object.entries(doc?.terms ?? {}).map(([term, tf]) => `${term}:${tf}:${doc?.norm}`);
    expect(
      postings.get(id) ?? [],
      `the postings of ${id}, not in flight: its committed state's`,
    ).toStrictEqual(want.sort());
  }
  const owners = new Set(docs.filter((doc) => inFlight.has(doc.id)).map((doc) => doc.leaseOwner));
  return { inFlight: inFlight.size, passes: owners.size };
}

/**
 * A reader beside the writers: looks at the whole table (`checkMoment`) at random moments between their calls until
 * stopped. The first check that fails is thrown by `stop`; `seen` counts the moments, and those with items in flight.
 */
export class Looks {
  readonly seen = { moments: 0, inFlight: 0 };
  private readonly state: { running: boolean; failure?: unknown } = { running: true };
  private readonly done: Promise<void>;

  constructor(gate: Gate, read: () => Promise<Record<string, unknown>[]>, random: () => number) {
    this.done = (async () => {
      while (this.state.running && !('failure' in this.state)) {
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 20)));
        try {
          const moment = await gate.alone(async () => checkMoment(await read()));
          this.seen.moments++;
          if (moment.inFlight > 0) this.seen.inFlight++;
        } catch (failure) {
          this.state.failure = failure;
        }
      }
    })();
  }

  /** Stops looking; throws what a look found wrong. */
  async stop() {
    this.state.running = false;
    await this.done;
    if ('failure' in this.state) throw this.state.failure;
    return this.seen;
  }
}
