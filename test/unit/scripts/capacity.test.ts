import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { dictionaryEntry } from '../../../lib/search/format/keys.ts';
import { entryOfItem, indexWrites, readKeys, updatedItem } from '../../../scripts/bench/capacity.ts';

// The benchmarks' cost model of the dictionary's index writes (AWS: an index is written when an item enters or
// leaves it, or a key or projected attribute of it changes), on tails as the posting writer writes them.
const tail = (term: string, df: number) =>
  marshall({
    pk: `T#${term}`,
    sk: 'K#~',
    p: '',
    df,
    lo: 0,
    m: 1,
    v: df,
    ...(df > 0 ? dictionaryEntry(term, df) : {}),
  });
const writes = (before: Record<string, unknown> | undefined, after: Record<string, unknown> | null) =>
  indexWrites(
    before ? entryOfItem(before as never) : undefined,
    after ? entryOfItem(after as never) : null,
  ).map((w) => w.key);

describe('indexWrites (scripts/bench/capacity.ts)', () => {
  it('writes both indexes when a term enters the dictionary and when it leaves it', () => {
    expect(writes(undefined, tail('boot', 1))).toStrictEqual([
      'terms-by-prefix-v2 P#bo',
      'terms-by-length-v2 L#4',
    ]);
    expect(writes(tail('boot', 3), null)).toStrictEqual([
      'terms-by-prefix-v2 P#bo',
      'terms-by-length-v2 L#4',
    ]);
  });

  it('writes the prefix index only when the df class changes, never the length index', () => {
    // 4 → 7 stay in class 2; 7 → 8 moves to class 3.
    expect(writes(tail('boot', 4), tail('boot', 7))).toStrictEqual([]);
    expect(writes(tail('boot', 7), tail('boot', 8))).toStrictEqual(['terms-by-prefix-v2 P#bo']);
  });

  it('counts nothing for an exact form, which is in no index', () => {
    expect(writes(undefined, marshall({ pk: 'T#=hiking', sk: 'K#~', df: 1 }))).toStrictEqual([]);
  });

  it('writes the prefix index when a removal from a sealed block removes the class, and not again after', () => {
    const remove = updatedItem('ADD df :d, v :one REMOVE wf', {}, marshall({ ':d': -1, ':one': 1 }) as never);
    if (!remove) throw new Error('the update touches the class');
    const before = tail('boot', 9) as never;
    const after = remove(before);
    expect(indexWrites(entryOfItem(before), entryOfItem(after)).map((w) => w.key)).toStrictEqual([
      'terms-by-prefix-v2 P#bo',
    ]);
    expect(indexWrites(entryOfItem(after), entryOfItem(remove(after)))).toStrictEqual([]);
    // An update of other attributes leaves the entry as it was.
    expect(updatedItem('ADD df :d, v :one', {}, marshall({ ':d': 1, ':one': 1 }) as never)).toBeUndefined();
  });
});

describe('readKeys (scripts/bench/capacity.ts)', () => {
  it('charges a Query to the partition of its key condition, an index’s under the index’s name', () => {
    const query = (input: Record<string, unknown>) =>
      readKeys('Query', { KeyConditionExpression: 'pk = :pk AND sk >= :tail', ...input }, {}, 1.5);
    expect(query({ ExpressionAttributeValues: marshall({ ':pk': 'T#boot', ':tail': 'K#~' }) })).toStrictEqual(
      [['T#boot', 1.5]],
    );
    expect(
      query({
        IndexName: 'terms-by-prefix-v2',
        ExpressionAttributeValues: marshall({ ':pk': 'P#bo', ':tail': 'x' }),
      }),
    ).toStrictEqual([['terms-by-prefix-v2 P#bo', 1.5]]);
  });

  it('charges a BatchGetItem per key by AWS’s rule: half a unit each 4 KB of an item, half for a missing one', () => {
    const keys = ['ITEM#1', 'ITEM#2', 'ITEM#3'].map((pk) => marshall({ pk, sk: 'x' }));
    const found = [
      { pk: 'ITEM#1', sk: 'x', body: 'a'.repeat(100) },
      { pk: 'ITEM#2', sk: 'x', body: 'a'.repeat(5_000) },
    ];
    const input = { RequestItems: { items: { Keys: keys } } };
    expect(readKeys('BatchGetItem', input, { Responses: { items: found } }, 3)).toStrictEqual([
      ['ITEM#1', 0.5],
      ['ITEM#2', 1],
      ['ITEM#3', 0.5],
    ]);
  });
});
