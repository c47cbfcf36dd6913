import { describe, expect, it } from 'vitest';
import {
  type BlockPosting,
  decodeBlock,
  edit,
  encodeBlock,
  split,
  withPosting,
} from '../../../../lib/search/format/blocks.ts';
import { idOfKey, impactOfKey, postingKey } from '../../../../lib/search/format/keys.ts';

const posting = (impact: number, id: number, tf = 1, dl = 10): BlockPosting => ({
  key: postingKey(impact, id),
  tf,
  dl,
});

describe('posting blocks', () => {
  it('round-trips postings through their stored text, and keys through impact and id', () => {
    const postings = [posting(999_999, 1, 3, 40), posting(500_000, 12_345_678_901, 1, 7), posting(0, 2)];
    const text = encodeBlock(postings);
    expect(text).toBe(
      '000000#0000000000000001:3:40,499999#0000012345678901:1:7,999999#0000000000000002:1:10',
    );
    expect(decodeBlock(text)).toStrictEqual(postings);
    expect(postings.map((p) => [impactOfKey(p.key), idOfKey(p.key)])).toStrictEqual([
      [999_999, 1],
      [500_000, 12_345_678_901],
      [0, 2],
    ]);
  });

  it('reads the empty text as a block of no postings (the last block a split term keeps), and writes it so', () => {
    expect(decodeBlock('')).toStrictEqual([]);
    expect(encodeBlock([])).toBe('');
  });

  it.each([
    [',', 'an empty entry'],
    ['000000#0000000000000001:3', 'a missing length'],
    ['000000#0000000000000001:0:4', 'a zero count'],
    ['000000#000000000000001:1:4', 'a short id'],
    ['000000#0000000000000002:1:4,000000#0000000000000001:1:4', 'keys out of order'],
    ['000000#0000000000000001:1:4,000000#0000000000000001:1:4', 'a repeated key'],
    ['000000#0000000000000001:1:4;', 'a stray character'],
  ])('refuses %j (%s)', (text) => {
    expect(() => decodeBlock(text)).toThrow(/Malformed posting block entry/);
  });

  it('adds a posting in key order and skips one already there', () => {
    const block = [posting(900, 1), posting(500, 2), posting(100, 3)];
    expect(withPosting(block, posting(700, 9))?.map((p) => idOfKey(p.key))).toStrictEqual([1, 9, 2, 3]);
    expect(withPosting(block, posting(50, 9))?.map((p) => idOfKey(p.key))).toStrictEqual([1, 2, 3, 9]);
    expect(withPosting(block, posting(999, 9))?.map((p) => idOfKey(p.key))).toStrictEqual([9, 1, 2, 3]);
    expect(withPosting(block, posting(500, 2, 7, 7))).toBeUndefined();
    expect(block).toHaveLength(3);
  });

  it('removes a posting by key and skips one that is not there', () => {
    const block = [posting(900, 1), posting(500, 2)];
    expect(edit(block, [], new Set([postingKey(900, 1)]))).toStrictEqual({
      postings: [posting(500, 2)],
      added: 0,
      removed: 1,
    });
    expect(edit(block, [], new Set([postingKey(901, 1)]))).toStrictEqual({
      postings: block,
      added: 0,
      removed: 0,
    });
    expect(edit([posting(1, 1)], [], new Set([postingKey(1, 1)])).postings).toStrictEqual([]);
  });

  it('splits only a block over capacity, into halves in order', () => {
    const block = Array.from({ length: 5 }, (_, i) => posting(900 - i, i));
    expect(split(block, 5)).toBeUndefined();
    expect(split(block, 4)).toStrictEqual([block.slice(0, 3), block.slice(3)]);
  });
});
