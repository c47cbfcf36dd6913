import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  type BlockPosting,
  blockMax,
  decodeBlock,
  decodeColumns,
  decodeDirectory,
  edit,
  encodeBlock,
  encodeDirectory,
  impactOfPosting,
  raisedImpact,
  sealTail,
  splitInto,
  tailDirectoryLimit,
} from '../../../../lib/search/format/blocks.ts';

const posting = (id: number, tf = 1, dl = 10): BlockPosting => ({ id, tf, dl });

describe('posting blocks', () => {
  it('stores each posting as three LEB128 varints: the distance from the previous id, tf and dl', () => {
    const postings = [posting(1, 3, 40), posting(37, 1, 200), posting(12_345_678_901, 1, 10)];
    const bytes = encodeBlock(postings);
    const distance = 12_345_678_901 - 37;
    const leb = (value: number) => {
      const out: number[] = [];
      for (let rest = value; ; rest = Math.floor(rest / 128)) {
        if (rest < 128) return [...out, rest];
        out.push((rest % 128) | 128);
      }
    };
    expect([...bytes]).toStrictEqual([1, 3, 40, 36, 1, (200 % 128) | 128, 1, ...leb(distance), 1, 10]);
    expect(decodeBlock(bytes)).toStrictEqual(postings);
    // About three bytes a posting where distances, tf and dl stay under 128 (a common term's block).
    expect(encodeBlock(Array.from({ length: 192 }, (_, i) => posting(i + 1, 1, 60))).length).toBe(576);
  });

  test.prop([
    fc.uniqueArray(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { maxLength: 40 }),
    fc.integer({ min: 1, max: 60_000 }),
  ])('round-trips any postings in id order', (ids, dl) => {
    const postings = ids.sort((a, b) => a - b).map((id) => posting(id, 1 + (id % 7), dl));
    expect(decodeBlock(encodeBlock(postings))).toStrictEqual(postings);
  });

  test.prop([
    fc.oneof(
      fc
        .uniqueArray(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { maxLength: 40 })
        .map((ids) =>
          encodeBlock(ids.sort((a, b) => a - b).map((id) => posting(id, 1 + (id % 7), 1 + (id % 90_000)))),
        ),
      fc.uint8Array({ maxLength: 24 }),
      fc.constantFrom(undefined, null, '1:3:14,10:1:7', 42),
    ),
  ])(
    "reads a block into columns (the reader's form) as decodeBlock reads it, and refuses what it refuses",
    (stored) => {
      let expected: BlockPosting[] | undefined;
      try {
        expected = decodeBlock(stored);
      } catch {
        expect(() => decodeColumns(stored)).toThrow(/Malformed posting block entry/);
        return;
      }
      const { length, ids, tfs, dls } = decodeColumns(stored);
      expect(
        Array.from({ length }, (_, i) => posting(ids[i] as number, tfs[i] as number, dls[i] as number)),
      ).toStrictEqual(expected);
    },
  );

  it('writes a block of no postings (an emptied tail) as no bytes, and reads it, or a missing one, as empty', () => {
    expect(encodeBlock([])).toStrictEqual(new Uint8Array());
    expect(decodeBlock(new Uint8Array())).toStrictEqual([]);
    expect(decodeBlock(undefined)).toStrictEqual([]);
  });

  it.each([
    [[1, 3], 'a posting cut short'],
    [[1, 1, 0x84], 'a varint cut short'],
    [[1, 0, 4], 'a zero count'],
    [[0, 1, 4], 'a zero distance (a repeated id)'],
    [[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 1], 'an id past 2^53'],
  ])('refuses the bytes %j (%s)', (bytes) => {
    expect(() => decodeBlock(Uint8Array.from(bytes))).toThrow(/Malformed posting block entry/);
  });

  it.each([[42], ['1:3:14,10:1:7'], [{ p: 1 }]])('refuses a value of another type: %j', (stored) => {
    expect(() => decodeBlock(stored)).toThrow(/Malformed posting block entry/);
    expect(() => decodeColumns(stored)).toThrow(/Malformed posting block entry/);
  });

  it('puts postings in id order, replaces one whose tf or dl changed, and skips one already there', () => {
    const block = [posting(1), posting(5), posting(9)];
    expect(edit(block, [posting(3), posting(12)], new Set())).toStrictEqual({
      postings: [posting(1), posting(3), posting(5), posting(9), posting(12)],
      added: 2,
      removed: 0,
      changed: true,
    });
    expect(edit(block, [posting(5, 2, 10)], new Set())).toStrictEqual({
      postings: [posting(1), posting(5, 2, 10), posting(9)],
      added: 0,
      removed: 0,
      changed: true,
    });
    expect(edit(block, [posting(5)], new Set()).changed).toBe(false);
  });

  it('removes an id unless the same change puts it back, and skips one that is not there', () => {
    const block = [posting(1), posting(2)];
    expect(edit(block, [], new Set([1]))).toStrictEqual({
      postings: [posting(2)],
      added: 0,
      removed: 1,
      changed: true,
    });
    expect(edit(block, [], new Set([7])).changed).toBe(false);
    expect(edit(block, [posting(1, 4, 4)], new Set([1]))).toStrictEqual({
      postings: [posting(1, 4, 4), posting(2)],
      added: 0,
      removed: 0,
      changed: true,
    });
  });

  it('cuts a block over capacity into even blocks in order, and seals a tail into full blocks from the oldest', () => {
    const block = Array.from({ length: 9 }, (_, i) => posting(i + 1));
    expect(splitInto(block, 9)).toStrictEqual([block]);
    expect(splitInto(block, 4).map((b) => b.length)).toStrictEqual([3, 3, 3]);
    expect(sealTail(block, 4)).toStrictEqual([block.slice(0, 4), block.slice(4, 8), block.slice(8)]);
    expect(sealTail(block, 9)).toStrictEqual([block]);
  });

  it('bounds a block by its strongest posting: more occurrences, or a shorter item, weigh more', () => {
    expect(blockMax([])).toBe(0);
    expect(impactOfPosting(posting(1, 2, 10))).toBeGreaterThan(impactOfPosting(posting(1, 1, 10)));
    expect(impactOfPosting(posting(1, 1, 5))).toBeGreaterThan(impactOfPosting(posting(1, 1, 10)));
    expect(blockMax([posting(1, 1, 10), posting(2, 1, 5), posting(3, 1, 50)])).toBe(
      impactOfPosting(posting(2, 1, 5)),
    );
  });
});

describe("a tail's copy of its directory", () => {
  test.prop([
    fc.uniqueArray(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { maxLength: 40 }),
    fc.integer({ min: 0, max: 999_999 }),
  ])('round-trips any block ends in order with their bounds', (ends, max) => {
    const entries = ends
      .sort((a, b) => a - b)
      .map((end, i): [number, number] => [end, (max + i) % 1_000_000]);
    expect(decodeDirectory(encodeDirectory(entries))).toStrictEqual(entries);
  });

  it('takes about five bytes a block: a full copy of 32 blocks of 192 stays small beside a tail', () => {
    const entries = Array.from({ length: 32 }, (_, i): [number, number] => [(i + 1) * 500, 450_000 + i]);
    expect(encodeDirectory(entries).length).toBe(32 * 5);
    expect(tailDirectoryLimit(192)).toBe(32);
    expect(tailDirectoryLimit(3)).toBe(2);
  });

  it.each([
    [[5, 1, 0, 1], 'a repeated end'],
    [[5], 'an entry cut short'],
    [[5, 0x80], 'a varint cut short'],
  ])('refuses the bytes %j (%s)', (bytes) => {
    expect(() => decodeDirectory(Uint8Array.from(bytes))).toThrow(/Malformed posting block entry/);
  });
});

describe('a block bound raised for an item shorter than its postings’ norm (the shrunk set)', () => {
  test.prop([
    fc.integer({ min: 1, max: 60 }),
    fc.integer({ min: 1, max: 2_000 }),
    fc.double({ min: 0, max: 1, noNaN: true }),
    fc.array(fc.record({ tf: fc.integer({ min: 1, max: 60 }), dl: fc.integer({ min: 1, max: 2_000 }) }), {
      maxLength: 5,
    }),
  ])(
    'bounds the posting at the item’s length, whatever the block’s other postings',
    (tf, norm, share, others) => {
      const dl = Math.max(1, Math.floor(norm * share));
      const max = blockMax([{ id: 1, tf, dl: norm }, ...others.map((other, i) => ({ id: i + 2, ...other }))]);
      const raised = raisedImpact(max, norm, dl);
      expect(raised).toBeGreaterThanOrEqual(max);
      expect(impactOfPosting({ tf, dl })).toBeLessThanOrEqual(raised);
    },
  );

  it('leaves a bound as it is for an item at least its norm, and raises it less for a smaller change', () => {
    const max = impactOfPosting({ tf: 2, dl: 40 });
    expect(raisedImpact(max, 40, 40)).toBe(max);
    expect(raisedImpact(max, 40, 50)).toBe(max);
    expect(raisedImpact(max, 40, 35)).toBeLessThan(raisedImpact(max, 40, 20));
    // Not looser than it must be: within two quantization steps of the posting's own impact at its new length.
    expect(raisedImpact(max, 40, 20) - impactOfPosting({ tf: 2, dl: 20 })).toBeLessThanOrEqual(2);
  });
});
