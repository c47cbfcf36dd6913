import { describe, expect, it } from 'vitest';
import { type BlockPosting, blockMax } from '../../../../lib/search/format/blocks.ts';
import {
  LENGTH_SLACK,
  normOf,
  planTail,
  relisted,
  type Tail,
} from '../../../../lib/search/write/postings.ts';

const posting = (id: number): BlockPosting => ({ id, tf: 1 + (id % 3), dl: 10 + id });
const append = (tail: Tail | undefined, ids: number[]) =>
  planTail(tail, { add: ids.map(posting), remove: new Set() }, 3);

describe("a tail's copy of its directory (blocks of three: a tail lists two blocks at most)", () => {
  it('lists each block its appends seal, until there are more than it may list; then never again', () => {
    const first = append(undefined, [1, 2]);
    expect(first.next.directory).toStrictEqual([]);
    const one = append(first.next, [3, 4]);
    const block = (ids: number[]) => [ids.at(-1), blockMax(ids.map(posting))];
    expect(one.next.directory).toStrictEqual([block([1, 2, 3])]);
    const two = append(one.next, [5, 6, 7]);
    expect(two.next.directory).toStrictEqual([block([1, 2, 3]), block([4, 5, 6])]);
    const three = append(two.next, [8, 9, 10]);
    expect(three.sealed.length).toBe(1);
    expect(three.next.directory).toBeUndefined();
    // Its pages alone now: a later seal does not start a partial list.
    expect(append(three.next, [11, 12, 13]).next.directory).toBeUndefined();
  });

  it('changes with the entries a sealed part sets and removes, in id order', () => {
    expect(
      relisted(
        [
          [3, 10],
          [6, 20],
        ],
        new Map([[3, 15]]),
        3,
      ),
    ).toStrictEqual([
      [3, 15],
      [6, 20],
    ]);
    expect(
      relisted(
        [
          [3, 10],
          [6, 20],
        ],
        new Map([[3, undefined]]),
        3,
      ),
    ).toStrictEqual([[6, 20]]);
    expect(relisted([[6, 20]], new Map([[2, 5]]), 3)).toStrictEqual([
      [2, 5],
      [6, 20],
    ]);
    expect(
      relisted(
        [
          [3, 10],
          [6, 20],
        ],
        new Map([[2, 5]]),
        3,
      ),
    ).toBeUndefined();
    expect(relisted(undefined, new Map([[3, undefined]]), 3)).toBeUndefined();
  });
});

describe("an item's norm, the length its postings carry", () => {
  it('is its length less an eighth, rounded down, never below 1 nor above the length', () => {
    expect(LENGTH_SLACK).toBe(1 / 8);
    expect([0, 1, 2, 7, 8, 9, 16, 64, 100, 105].map((dl) => normOf(dl))).toStrictEqual([
      0, 1, 1, 6, 7, 7, 14, 56, 87, 91,
    ]);
    // Without a slack, the length itself (the postings before norms).
    expect([1, 9, 100].map((dl) => normOf(dl, 0))).toStrictEqual([1, 9, 100]);
  });
});
