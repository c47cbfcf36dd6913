import { describe, expect, it } from 'vitest';
import { decodeColumns, encodeBlock } from '../../../../lib/search/format/blocks.ts';
import { ShrunkPostings } from '../../../../lib/search/read/shrunk-postings.ts';

/** Postings of the ids `ids`, each tf 2 and length 10, as a block read decodes them. */
const columnsOf = (ids: number[]) => decodeColumns(encodeBlock(ids.map((id) => ({ id, tf: 2, dl: 10 }))));
const plain = ({ ids, tfs, dls }: ReturnType<typeof columnsOf>) => ({
  ids: [...ids],
  tfs: [...tfs],
  dls: [...dls],
});

describe('ShrunkPostings', () => {
  it('scores a shrunk item at its length and cut tf, and leaves a ghost out', () => {
    const shrunk = new ShrunkPostings([
      { id: 2, dl: 4, norm: 0, cut: { lynx: 1 } },
      { id: 5, dl: 3, norm: 0, cut: { lynx: 0 } },
    ]);
    expect(plain(shrunk.atLengths(columnsOf([2, 5, 9]), 'lynx'))).toStrictEqual({
      ids: [2, 9],
      tfs: [1, 2],
      dls: [4, 10],
    });
    // Another term's cut leaves this term's tf as stored; the length is the item's all the same.
    expect(plain(shrunk.atLengths(columnsOf([2, 5, 9]), 'puma'))).toStrictEqual({
      ids: [2, 5, 9],
      tfs: [2, 2, 2],
      dls: [4, 3, 10],
    });
  });

  it('leaves the postings it was given as read: a container keeps them, and a later set may have no entry', () => {
    const kept = columnsOf([2, 5, 9]);
    new ShrunkPostings([{ id: 5, dl: 3, norm: 0, cut: { lynx: 0 } }]).atLengths(kept, 'lynx');
    new ShrunkPostings([{ id: 2, dl: 4, norm: 0, cut: { lynx: 1 } }]).atLengths(kept, 'lynx');
    expect(plain(kept)).toStrictEqual(plain(columnsOf([2, 5, 9])));
    // The set read later holds neither entry: the kept postings are scored as stored.
    expect(plain(new ShrunkPostings([]).atLengths(kept, 'lynx'))).toStrictEqual(plain(columnsOf([2, 5, 9])));
  });

  it('gives back the same postings, uncopied, when no shrunk item is among them', () => {
    const kept = columnsOf([2, 5, 9]);
    expect(new ShrunkPostings([{ id: 7, dl: 3, norm: 0, cut: { lynx: 0 } }]).atLengths(kept, 'lynx')).toBe(
      kept,
    );
  });
});
