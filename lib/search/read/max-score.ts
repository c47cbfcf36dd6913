import type { TopKCollector } from './collector.ts';
import { EMPTY, PieceTable } from './piece-table.ts';
import { type Block, firstAfter, type Piece, type TermList, wordsOf } from './pieces.ts';
import type { Scorer } from './scorer.ts';

/** One look at a piece whose essential blocks are read: its candidates, and what they need. */
interface Scan {
  piece: Piece;
  table: PieceTable;
  threshold: number;
  unread: Block[];
  /** Per word, the most its unread blocks could add. */
  unreadBounds: Float64Array;
  /** The best bound of the items passed over so far. */
  passedOver: number;
  /** Some candidate needs every unread block (its matched terms come from its postings). */
  needed: boolean;
  /** With `matchedTermsOf`: the unread blocks some candidate needs. */
  wanting: Set<Block>;
}

/**
 * Block-max MaxScore within one piece at a time, as Lucene's MaxScoreBulkScorer splits its clauses: a piece's blocks
 * of greatest bound are *essential*, the fewest whose others' bounds add up to less than the threshold, so an item in
 * none of them cannot reach it. Once those are read, each item they hold is a candidate: known in the blocks read,
 * bounded by the others'. A candidate that can still reach the threshold needs the piece's other blocks; one that
 * cannot is passed over (its bound kept); one with every block read is scored exactly, into the collector.
 */
export class MaxScoreEvaluator {
  /** Each piece's table of the items of its read blocks. */
  readonly #tables = new Map<Piece, PieceTable>();

  readonly #scorer: Scorer;
  readonly #collector: TopKCollector;
  /** Whether an answer's matched terms come from its item (`matchedTermsOf`), not from every block around it. */
  readonly #matchedFromItems: boolean;

  constructor(scorer: Scorer, collector: TopKCollector, matchedFromItems: boolean) {
    this.#scorer = scorer;
    this.#collector = collector;
    this.#matchedFromItems = matchedFromItems;
  }

  /** Evaluates a piece at `threshold`; returns the blocks it needs read next (none: settled, `passedOver` set). */
  evaluate(piece: Piece, threshold: number): Block[] {
    const { essential, rest } = this.#split(piece, threshold);
    const unreadEssential = essential.filter((block) => !block.postings);
    if (unreadEssential.length > 0) return unreadEssential;
    const unread = piece.blocks.filter((block) => !block.postings);
    if (unread.length === 0 && piece.blocks.length === 1) return this.#scoreAlone(piece, threshold);
    const table = PieceTable.of(piece, essential, this.#scorer, this.#tables.get(piece));
    this.#tables.set(piece, table);
    const unreadBounds = new Float64Array(this.#scorer.width);
    for (const [word, blocks] of wordsOf(unread)) unreadBounds[word] = blocks.bound;
    // An item of a piece read whole is in its table unless it is in none of the essential blocks, so bounded by
    // `rest`: what the piece passes over is that and what it scored below the threshold.
    const passedOver = unread.length === 0 && table.partial === 0 ? Number.NEGATIVE_INFINITY : rest;
    const scan: Scan = {
      piece,
      table,
      threshold,
      unread,
      unreadBounds,
      passedOver,
      needed: false,
      wanting: new Set(),
    };
    for (let row = 0; row < table.ids.length; row++)
      if (!this.#collector.decided(table.ids[row] as number)) this.#visit(scan, row);
    if (scan.needed) return unread;
    if (scan.wanting.size > 0) return [...scan.wanting];
    piece.passedOver = scan.passedOver;
    return [];
  }

  /**
   * A piece's essential blocks, MaxScore's split taken down to a word's alternatives: an item in none of them holds
   * each word, if at all, through alternatives no stronger than the word's strongest non-essential one (its cap), so
   * its score is at most the caps' sum (`rest`). The strongest alternative of the word of greatest cap is made
   * essential until that sum is below the threshold: a word of one term is taken whole, as MaxScore takes it, and a
   * prefix's weak completions stay unread where no item can reach the threshold through them alone.
   */
  #split(piece: Piece, threshold: number): { essential: Block[]; rest: number } {
    const byWord = [...wordsOf(piece.blocks).values()].map((word) => ({
      blocks: word.blocks.sort((x, y) => y.bound - x.bound),
      taken: 0,
    }));
    const cap = (word: (typeof byWord)[number]) => word.blocks[word.taken]?.bound ?? 0;
    // Summed afresh each time (a few words): no rounding drift below the true sum.
    const caps = () => byWord.reduce((sum, word) => sum + cap(word), 0);
    let rest = caps();
    const essential: Block[] = [];
    while (this.#collector.reaches(rest, threshold)) {
      let strongest = byWord[0];
      for (const word of byWord) if (strongest === undefined || cap(word) > cap(strongest)) strongest = word;
      const block = strongest?.blocks[strongest.taken];
      if (!strongest || !block) break;
      essential.push(block);
      strongest.taken++;
      rest = caps();
    }
    return { essential, rest };
  }

  /** Looks at one candidate: scored, passed over, or marked as needing blocks. */
  #visit(scan: Scan, row: number): void {
    if (scan.unread.length === 0) {
      this.#scoreRow(scan, row);
      return;
    }
    const { table, threshold, unreadBounds } = scan;
    const at = row * this.#scorer.width;
    let bound = 0;
    for (let word = 0; word < this.#scorer.width; word++)
      bound += Math.max(table.best[at + word] as number, unreadBounds[word] as number);
    if (!this.#collector.reaches(bound, threshold)) scan.passedOver = Math.max(scan.passedOver, bound);
    else if (!this.#matchedFromItems) scan.needed = true;
    // Only the blocks that can change its score are needed; with none, its score is known.
    else if (!this.#wantsBlocks(scan, row, bound)) this.#scoreRow(scan, row);
  }

  /** Adds to the scan's wanted blocks those that can change the candidate's score; whether there were any. */
  #wantsBlocks(scan: Scan, row: number, bound: number): boolean {
    const at = row * this.#scorer.width;
    let wants = false;
    for (const block of scan.unread) {
      const word = Math.max(
        scan.table.best[at + block.word] as number,
        scan.unreadBounds[block.word] as number,
      );
      if (!this.#changes(scan.table, row, block, bound - word, scan.threshold)) continue;
      scan.wanting.add(block);
      wants = true;
    }
    return wants;
  }

  /** Scores a candidate whose every block that matters is read: recorded, or passed over. */
  #scoreRow(scan: Scan, row: number): void {
    const id = scan.table.ids[row] as number;
    const score = scan.table.rowScore(row);
    if (this.#collector.reaches(score, scan.threshold))
      this.#collector.record(id, score, () => this.#matchedTerms(scan.piece, id));
    else scan.passedOver = Math.max(scan.passedOver, score);
  }

  /**
   * Whether an unread block can change the score of the item in `row`, whose other words' bound (with every unread
   * block) is `others`: it can raise the best of its word's alternatives past what the item holds and so reach the
   * threshold, or it is of a term before the first the item holds of its word and after another word's first, so it
   * may move the word ahead of that one in the sum (rowScore adds the words in the order of their first terms: the
   * in-memory ranking's order, to the last bit).
   */
  #changes(table: PieceTable, row: number, block: Block, others: number, threshold: number): boolean {
    const width = this.#scorer.width;
    const at = row * width;
    if (
      block.bound > (table.best[at + block.word] as number) &&
      this.#collector.reaches(others + block.bound, threshold)
    )
      return true;
    if (!this.#scorer.alternatives || block.bound <= 0) return false;
    const first = table.first[at + block.word] as number;
    if (first < 0 || block.term > first) return false;
    for (let word = 0; word < width; word++) {
      const other = table.first[at + word] as number;
      if (word !== block.word && other >= 0 && block.term < other && other < first) return true;
    }
    return false;
  }

  /** A piece that lies in one block of one term, read: each item scored from its posting alone. */
  #scoreAlone(piece: Piece, threshold: number): Block[] {
    const [block] = piece.blocks as [Block];
    const list = this.#scorer.lists[block.term] as TermList;
    const { ids, tfs, dls, length } = block.postings ?? EMPTY;
    let passedOver = Number.NEGATIVE_INFINITY;
    for (let i = firstAfter(ids, length, piece.after); i < length; i++) {
      const id = ids[i] as number;
      if (id > piece.to) break;
      if (this.#collector.decided(id)) continue;
      const score = this.#scorer.scoreOf(tfs[i] as number, dls[i] as number, list.weight);
      if (this.#collector.reaches(score, threshold)) this.#collector.record(id, score, () => [list.term]);
      else passedOver = Math.max(passedOver, score);
    }
    piece.passedOver = passedOver;
    return [];
  }

  /** The terms of a piece's blocks that hold `id`, in term order. */
  #matchedTerms(piece: Piece, id: number): string[] {
    const matched: string[] = [];
    for (const block of piece.blocks) {
      const { ids, length } = block.postings ?? EMPTY;
      const i = firstAfter(ids, length, id - 1);
      if (i < length && ids[i] === id) matched.push((this.#scorer.lists[block.term] as TermList).term);
    }
    return matched;
  }
}
