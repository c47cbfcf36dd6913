import { B, K1 } from '../format/bm25.ts';
import type { TermList } from './pieces.ts';

/** What an item holds, as the index scores it: each term's frequency, and its length. */
export interface ItemTerms {
  tfs: ReadonlyMap<string, number>;
  dl: number;
}

/**
 * A query's BM25 arithmetic over its term lists and words (a word and its alternatives score as one term, the best of
 * them: contract §8.6), step for step as the in-memory ranking does it, so equal scores are equal to the last bit.
 */
export class Scorer {
  readonly lists: readonly TermList[];
  /** The number of words (each list's `word` is below it). */
  readonly width: number;
  readonly avgdl: number;
  /** Whether some word has several alternatives (its completions, its corrections). */
  readonly alternatives: boolean;

  constructor(lists: readonly TermList[], width: number, avgdl: number) {
    this.lists = lists;
    this.width = width;
    this.avgdl = avgdl;
    this.alternatives = width < lists.length;
  }

  /** termScore's arithmetic, step for step (so every score equals the in-memory ranking's to the last bit). */
  scoreOf(tf: number, dl: number, weight: number): number {
    return weight * (K1 + 1) * (tf / (tf + K1 * (1 - B + B * (dl / this.avgdl))));
  }

  /**
   * An item's score from what it holds (`itemOf`): each word's best alternative, added in the order of the words'
   * first terms the item holds, with PieceTable.rowScore's arithmetic (so an item whose postings are as it holds them
   * scores the very same number).
   */
  itemScore({ tfs, dl }: ItemTerms): number {
    const best = new Float64Array(this.width);
    const held: number[] = [];
    for (const list of this.lists) {
      const tf = tfs.get(list.term);
      if (tf === undefined) continue;
      if (best[list.word] === 0) held.push(list.word);
      best[list.word] = Math.max(best[list.word] as number, this.scoreOf(tf, dl, list.weight));
    }
    let score = 0;
    for (const word of held) score += best[word] as number;
    return score;
  }
}
