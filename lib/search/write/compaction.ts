import { queryEach } from '../../dynamodb/query-all.ts';
import { shrunkBytes, shrunkOf, shrunkQueries } from '../format/keys.ts';
import type { IndexOutcome, WriterContext } from './context.ts';
import { runPass } from './pass.ts';

/**
 * Entries the shrunk set holds before a writer that adds one compacts it (~40 bytes an entry shrunk in its length
 * alone, ~100 with a shortening's cut, ~300 with a halving's), and the bytes it holds at most: every query reads the
 * whole set, DynamoDB charging the Query by its bytes (64 KB: 8 read units, eventually consistent). 64 KB holds ~220
 * halvings of Cranfield items, whose compaction then costs ~22 WCU an item (~29 at 32 KB, ~100 items).
 */
export const COMPACT_AT = 256;
export const COMPACT_BYTES = 64 * 1024;

/**
 * Compacts the shrunk set once it holds `atLeast` entries or `ctx.compactBytes`: its items' postings rewritten in one
 * batch (where they share their terms' records: an edit costs what a batched one does), each committed out of the
 * set. One pass: an item another writer holds is left in the set for the next compaction (no writer waits for
 * another); a pass that cannot land before `deadline` stops after its write-ahead (LeaseRanOut). Returns how many
 * it took out.
 */
export async function compact(ctx: WriterContext, atLeast: number, deadline?: number): Promise<number> {
  const rows = await queryEach(ctx.client, shrunkQueries(ctx.tableName, true));
  const entries = shrunkOf(rows);
  if (entries.length === 0 || (entries.length < atLeast && shrunkBytes(rows) < ctx.compactBytes)) return 0;
  const ids = entries.map((entry) => entry.id);
  const outcomes = new Map<number, IndexOutcome>();
  await runPass(ctx, ids, { outcomes, deadline, renorm: new Set(ids), shrank: false });
  return [...outcomes.values()].filter((outcome) => outcome !== 'unchanged').length;
}
