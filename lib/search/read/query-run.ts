import type { BlockReader, ReadBudget } from './block-reads.ts';
import type { Hit, TopKCollector } from './collector.ts';
import type { MaxScoreEvaluator } from './max-score.ts';
import type { Block, Piece } from './pieces.ts';

/** What a query run asks of its caller. */
export interface RunRequest {
  /** Keeps the ids that pass the caller's filter (and still exist). */
  accept: (ids: number[]) => Promise<Set<number>>;
  /** An accepted item's score from what it holds, where the caller knows the item. */
  rescore: (id: number) => number | undefined;
  matchedTermsOf: ((id: number) => string[]) | undefined;
  /** Sealed blocks asked for in one round trip. */
  blocksPerRound: number;
}

const key = (block: Block) => `${block.term}\u0000${block.sk}`;

/**
 * One query's rounds over its pieces: each round, the pieces that can still reach the k-th score, in descending bound,
 * ask for the blocks they need until the round's blocks are asked for, and those are read; once none needs a block
 * (or the budget is spent), the filter is asked about the best candidates, and the answer is final unless it rejected
 * or rescored some.
 */
export class QueryRun {
  readonly #pieces: readonly Piece[];
  readonly #evaluator: MaxScoreEvaluator;
  readonly #collector: TopKCollector;
  readonly #reader: BlockReader;
  readonly #budget: ReadBudget;
  readonly #request: RunRequest;
  /** Candidates the filter is asked about next: doubles while it rejects. */
  #asking: number;

  constructor(parts: {
    pieces: readonly Piece[];
    evaluator: MaxScoreEvaluator;
    collector: TopKCollector;
    reader: BlockReader;
    budget: ReadBudget;
    request: RunRequest;
  }) {
    this.#pieces = parts.pieces;
    this.#evaluator = parts.evaluator;
    this.#collector = parts.collector;
    this.#reader = parts.reader;
    this.#budget = parts.budget;
    this.#request = parts.request;
    this.#asking = parts.collector.topK;
  }

  /** The best k hits that pass the filter. */
  async run(): Promise<Hit[]> {
    // Pieces whose blocks are all tails (read with the first round trip) are scored first, at no cost: their items
    // give the k-th score a start, so the first blocks read are already only the essential ones.
    for (const piece of this.#pieces)
      if (piece.blocks.every((block) => block.postings))
        this.#evaluator.evaluate(piece, Number.NEGATIVE_INFINITY);
    while (true) {
      const wanted = this.#round();
      if (wanted.length > 0) {
        const likely = this.#likelyNeeded(this.#collector.threshold());
        this.#budget.spend(await this.#reader.fetch(wanted, likely, this.#budget.left()));
        continue;
      }
      const answer = await this.#settle();
      if (answer) return answer;
    }
  }

  /** A round's wanted blocks (none: every piece settled, or left over the budget). */
  #round(): Block[] {
    const wanted = new Map<string, Block>();
    this.#budget.startRound();
    for (const piece of this.#pieces) {
      // The k-th score rises as pieces are scored, within the round too.
      const threshold = this.#collector.threshold();
      if (!this.#collector.reaches(piece.bound, threshold)) break;
      if (piece.passedOver !== undefined && !this.#collector.reaches(piece.passedOver, threshold)) continue;
      const needs = this.#evaluator.evaluate(piece, threshold).filter((block) => !wanted.has(key(block)));
      if (needs.length === 0) continue;
      // Over the budget: this piece is left, and cheaper ones (their blocks read already) still scored.
      if (!this.#budget.allows(wanted.size, needs.length)) continue;
      for (const block of needs) wanted.set(key(block), block);
      if (wanted.size >= this.#request.blocksPerRound) break;
    }
    return [...wanted.values()];
  }

  /**
   * The unread blocks of every piece that can still reach the threshold: what the query may read next unless the
   * k-th score rises first. A range read takes them along where they lie beside the blocks it reads.
   */
  #likelyNeeded(threshold: number): Set<Block> {
    const likely = new Set<Block>();
    for (const piece of this.#pieces) {
      if (!this.#collector.reaches(piece.bound, threshold)) break;
      if (piece.passedOver !== undefined && !this.#collector.reaches(piece.passedOver, threshold)) continue;
      for (const block of piece.blocks) if (!block.postings) likely.add(block);
    }
    return likely;
  }

  /**
   * Settled (or out of budget): the best k, if the filter keeps them all, are the answer. The filter is asked about
   * the best `asking` not yet asked about, a number that doubles while it rejects, so a filter that rejects nearly
   * everything costs a few calls, not one per k candidates. Undefined: more rounds are needed.
   */
  async #settle(): Promise<Hit[] | undefined> {
    const { accept, rescore, matchedTermsOf } = this.#request;
    const outcome = await this.#collector.consult(this.#asking, accept, rescore);
    if (!outcome.rejecting && !outcome.rescored) return this.#collector.answer(outcome, matchedTermsOf);
    // A score made lower lowers the k-th score, as a rejection does: pieces passed over may reach it now, and the
    // best k may hold items not yet asked about.
    if (!outcome.rejecting) return undefined;
    // A filter that rejects candidates lowers the k-th score: more pieces may qualify, under a larger budget.
    if (!this.#budget.widen()) return this.#collector.answer(outcome, matchedTermsOf);
    this.#asking *= 2;
    return undefined;
  }
}
