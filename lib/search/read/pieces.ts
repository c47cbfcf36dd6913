import type { PostingColumns } from '../format/blocks.ts';
import { sealedKey, TAIL_SK, termPk } from '../format/keys.ts';

/** A block of one term as the query sees it: the ids (after, to] it covers, its bound, its postings once read. */
export interface Block {
  /** Its term's number (its place among the query's term lists). */
  term: number;
  /** Its term's word (contract §8.6): the blocks of one word's alternatives add their best, not their sum. */
  word: number;
  after: number;
  to: number;
  /** The most a posting of it adds to a score. */
  bound: number;
  /** Its key: a sealed block's (keys.ts `sealedKey`), or the tail's sort key under the term's own pk. */
  pk: string;
  sk: string;
  /** Its place among its term's sealed blocks (the tail: after the last). */
  index: number;
  postings: PostingColumns | undefined;
}

/** A piece of the id line: it lies in one block of each term that has postings around it. */
export interface Piece {
  after: number;
  to: number;
  /** One block per term that has postings around it. */
  blocks: Block[];
  bound: number;
  /**
   * Set once the piece is *settled* (every item in it scored or shown unable to reach the k-th score): the best bound
   * of the items it passed over, so a filter that lowers the k-th score opens it again.
   */
  passedOver?: number;
}

/** A query term with what the first reads found of it. */
export interface TermList {
  term: string;
  weight: number;
  tail: { postings: PostingColumns; lo: number; m: number };
  /** Sealed blocks' ends and maxima, in id order. */
  entries: [end: number, max: number][];
  /** Its blocks in id order (sealed, then the tail), once the id line is split into pieces. */
  blocks: Block[];
  /** Read units its blocks' reads have cost so far (estimated). */
  spent: number;
  /** Its word's number (the alternatives of one word share it). */
  word: number;
}

/** A block's bound from its term's weight, its maximum impact and its range. */
export type BoundOf = (weight: number, max: number, after: number, to: number) => number;

/** A term's blocks in id order: its sealed blocks, then its tail when the tail holds postings. */
function blocksOf(list: TermList, term: number, boundOf: BoundOf): Block[] {
  const blocks: Block[] = [];
  let after = 0;
  for (const [end, max] of list.entries) {
    blocks.push({
      term,
      word: list.word,
      after,
      to: end,
      bound: boundOf(list.weight, max, after, end),
      ...sealedKey(list.term, end),
      index: blocks.length,
      postings: undefined,
    });
    after = end;
  }
  if (list.tail.postings.length > 0)
    blocks.push({
      term,
      word: list.word,
      after: list.tail.lo,
      to: Number.MAX_SAFE_INTEGER,
      bound: boundOf(list.weight, list.tail.m, list.tail.lo, Number.MAX_SAFE_INTEGER),
      pk: termPk(list.term),
      sk: TAIL_SK,
      index: blocks.length,
      postings: list.tail.postings,
    });
  return blocks;
}

/**
 * Splits the id line wherever a term's block ends, so each piece lies in one block of each term (each list's `blocks`
 * set on the way); returns the pieces that some term has a block over, in descending bound (ties in id order).
 */
export function piecesOf(lists: TermList[], boundOf: BoundOf): Piece[] {
  const byTerm = lists.map((list, term) => {
    list.blocks = blocksOf(list, term, boundOf);
    return list.blocks;
  });
  const ends = [...new Set(byTerm.flat().flatMap((block) => [block.after, block.to]))].sort((a, b) => a - b);
  const cursors = byTerm.map(() => 0);
  const pieces: Piece[] = [];
  for (let i = 1; i < ends.length; i++) {
    const after = ends[i - 1] as number;
    const to = ends[i] as number;
    const blocks: Block[] = [];
    byTerm.forEach((termBlocks, term) => {
      let at = cursors[term] as number;
      while (at < termBlocks.length && (termBlocks[at] as Block).to < to) at++;
      cursors[term] = at;
      const block = termBlocks[at];
      if (block && block.after <= after) blocks.push(block);
    });
    if (blocks.length > 0)
      pieces.push({
        after,
        to,
        blocks,
        bound: [...wordsOf(blocks).values()].reduce((sum, word) => sum + word.bound, 0),
      });
  }
  return pieces.sort((a, b) => b.bound - a.bound || a.after - b.after);
}

/** Blocks by their word (in order of first appearance), each word bounded by its best block. */
export function wordsOf(blocks: readonly Block[]): Map<number, { bound: number; blocks: Block[] }> {
  const words = new Map<number, { bound: number; blocks: Block[] }>();
  for (const block of blocks) {
    const word = words.get(block.word) ?? { bound: 0, blocks: [] };
    word.bound = Math.max(word.bound, block.bound);
    word.blocks.push(block);
    words.set(block.word, word);
  }
  return words;
}

/** The index of the first of `length` ids (ascending) that is above `after`. */
export function firstAfter(ids: Float64Array, length: number, after: number): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ids[middle] as number) <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
