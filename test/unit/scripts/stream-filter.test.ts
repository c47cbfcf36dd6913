import { describe, expect, it } from 'vitest';
import { COUNTER_KEY, ID_BLOCK, ITEM_SHARDS, itemKey } from '../../../lib/items/keys.ts';
import { statsKey } from '../../../lib/search/format/counts.ts';
import { docKey, tailKey } from '../../../lib/search/format/keys.ts';
import { CHECKPOINT_KEY } from '../../../lib/search/operations/checkpoint.ts';
import { streamSettings } from '../../../scripts/local/stream-batches.ts';
import { matchesPattern, passesFilters } from '../../../scripts/local/stream-filter.ts';

/** A stream record of a write to the record with this key, as Lambda's filter sees it. */
const recordOf = ({ pk, sk }: { pk: string; sk: string }) => ({
  eventName: 'MODIFY',
  dynamodb: { Keys: { pk: { S: pk }, sk: { S: sk } }, SequenceNumber: '1' },
});

describe('the stream filter (infra/stream.json, deployed and applied by the local consumer)', () => {
  const passes = (key: { pk: string; sk: string }) =>
    passesFilters(streamSettings.filterPatterns, recordOf(key));

  it('passes the records of items in every shard', () => {
    const ids = [
      1,
      ID_BLOCK,
      17 * ID_BLOCK + 3,
      63 * ID_BLOCK + 5,
      ID_BLOCK * ITEM_SHARDS,
      9_007_199_254_740_991,
    ];
    for (const id of ids) expect(passes(itemKey(id)), `item ${id}`).toBe(true);
    expect(new Set(ids.map((id) => itemKey(id).pk)).size).toBeGreaterThanOrEqual(4);
  });

  it("drops the index's own records, the id counter, the reindex checkpoint and idempotency records", () => {
    const others = [
      tailKey('boot'),
      docKey(7),
      statsKey(3),
      COUNTER_KEY,
      CHECKPOINT_KEY,
      { pk: `IDEM#${'a'.repeat(64)}`, sk: 'IDEM' },
    ];
    for (const key of others) expect(passes(key), JSON.stringify(key)).toBe(false);
  });
});

describe("Lambda's filter rules, as the local consumer implements them", () => {
  const event = { dynamodb: { Keys: { pk: { S: 'ITEM#12' } } }, eventName: 'INSERT' };

  it('matches an exact string or a prefix, field by field down the event', () => {
    expect(matchesPattern({ eventName: ['INSERT', 'MODIFY'] }, event)).toBe(true);
    expect(matchesPattern({ eventName: ['REMOVE'] }, event)).toBe(false);
    expect(matchesPattern({ dynamodb: { Keys: { pk: { S: [{ prefix: 'ITEM#' }] } } } }, event)).toBe(true);
    expect(matchesPattern({ dynamodb: { Keys: { pk: { S: [{ prefix: 'ITEM#2' }] } } } }, event)).toBe(false);
    // Every field of a pattern must match; a field the event lacks does not.
    expect(
      matchesPattern({ eventName: ['INSERT'], dynamodb: { Keys: { pk: { S: ['ITEM'] } } } }, event),
    ).toBe(false);
    expect(matchesPattern({ dynamodb: { NewImage: { pk: { S: [{ prefix: '' }] } } } }, event)).toBe(false);
  });

  it('passes an event any pattern matches, and every event when there is none', () => {
    expect(passesFilters([{ eventName: ['REMOVE'] }, { eventName: ['INSERT'] }], event)).toBe(true);
    expect(passesFilters([{ eventName: ['REMOVE'] }], event)).toBe(false);
    expect(passesFilters([], event)).toBe(true);
  });

  it('refuses a rule it does not implement instead of matching it wrongly', () => {
    expect(() => matchesPattern({ eventName: [{ 'anything-but': 'REMOVE' } as never] }, event)).toThrow(
      /only exact strings and prefix/,
    );
  });
});
