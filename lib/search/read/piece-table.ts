import { decodeColumns } from '../format/blocks.ts';
import { type Block, firstAfter, type Piece, type TermList } from './pieces.ts';
import type { Scorer } from './scorer.ts';

/** Columns of no postings: a block not read, or gone since its directory listed it. */
export const EMPTY = decodeColumns(undefined);

/**
 * A piece's items, a row each: per word (by number), its best alternative's score and first term. Kept with the piece
 * and added to as its blocks are read (a piece waiting for blocks is looked at every round): one row an item, found
 * by id, in arrays a row is pushed onto, so a block read is added once, by its own postings, and nothing else is
 * copied (a prefix's completions make many blocks a piece).
 */
export class PieceTable {
  /** The items, one a row, in the order they were first met (no step depends on it: ties break by id). */
  readonly ids: number[] = [];
  /** Each item's row (an array beside it: looping over an array is the hot path of evaluation). */
  readonly rows = new Map<number, number>();
  /** rows × words: the word's best score in the item (0: none). */
  readonly best: number[] = [];
  /** rows × words (where a word has alternatives): the number of the word's first term the item holds (-1: none). */
  readonly first: number[] = [];
  /**
   * The blocks added, each with whether its items were all given rows: an essential block's are; another's only
   * update the items the table holds, since an item in none of the essential blocks cannot reach the threshold.
   */
  readonly added = new Map<Block, boolean>();
  /** How many blocks were added for known items only. */
  partial = 0;

  readonly #scorer: Scorer;

  constructor(scorer: Scorer) {
    this.#scorer = scorer;
  }

  /**
   * The piece's table (`kept`, the one made for it before, or a new one) with its essential blocks added whole and its
   * other read blocks for known items.
   */
  static of(
    piece: Piece,
    essential: readonly Block[],
    scorer: Scorer,
    kept: PieceTable | undefined,
  ): PieceTable {
    // A block essential now that was added for known items only (the threshold fell, a filter rejected some): the
    // table is made again, since a row it adds would miss the blocks added before it.
    const table =
      !kept || (kept.partial > 0 && essential.some((block) => kept.added.get(block) !== true))
        ? new PieceTable(scorer)
        : kept;
    for (const block of essential) if (!table.added.has(block)) table.add(block, piece, true);
    for (const block of piece.blocks)
      if (block.postings && !table.added.has(block)) table.add(block, piece, false);
    return table;
  }

  /** Adds a read block's postings in the piece: with `rows`, an item not yet in the table gets one. */
  add(block: Block, piece: Piece, rows: boolean): void {
    const { alternatives } = this.#scorer;
    const { ids, tfs, dls, length } = block.postings ?? EMPTY;
    const list = this.#scorer.lists[block.term] as TermList;
    const end = firstAfter(ids, length, piece.to);
    for (let j = firstAfter(ids, length, piece.after); j < end; j++) {
      const row = this.#rowOf(ids[j] as number, rows);
      if (row === undefined) continue;
      const cell = row * this.#scorer.width + list.word;
      this.best[cell] = Math.max(
        this.best[cell] as number,
        this.#scorer.scoreOf(tfs[j] as number, dls[j] as number, list.weight),
      );
      // The word's first alternative the item holds, in term order: its score adds the words up in that order.
      // Which came first matters only where a word has several (rowScore).
      if (alternatives && (this.first[cell] === -1 || block.term < (this.first[cell] as number)))
        this.first[cell] = block.term;
    }
    this.added.set(block, rows);
    if (!rows) this.partial++;
  }

  /** An item's row; a new one when `make` (undefined for an item not in the table otherwise). */
  #rowOf(id: number, make: boolean): number | undefined {
    const row = this.rows.get(id);
    if (row !== undefined || !make) return row;
    const added = this.ids.length;
    this.ids.push(id);
    this.rows.set(id, added);
    for (let word = 0; word < this.#scorer.width; word++) {
      this.best.push(0);
      if (this.#scorer.alternatives) this.first.push(-1);
    }
    return added;
  }

  /**
   * An item's exact score: each word's best, added in the order of the words' first terms the item holds (the
   * order the in-memory ranking adds them in, so equal scores are equal to the last bit).
   */
  rowScore(row: number): number {
    const width = this.#scorer.width;
    const at = row * width;
    let score = 0;
    // Words of one term each: their order is the terms' order, the words' own.
    if (!this.#scorer.alternatives) {
      for (let word = 0; word < width; word++) score += this.best[at + word] as number;
      return score;
    }
    const held: number[] = [];
    for (let word = 0; word < width; word++) if ((this.first[at + word] as number) >= 0) held.push(word);
    if (held.length > 1) held.sort((x, y) => (this.first[at + x] as number) - (this.first[at + y] as number));
    for (const word of held) score += this.best[at + word] as number;
    return score;
  }
}
