import type { ItemTerms } from './scorer.ts';

export interface Hit {
  id: number;
  score: number;
  matchedTerms: string[];
}

const byScore = (a: Hit, b: Hit) => b.score - a.score || a.id - b.id;

/** The best `n` hits in order (byScore), without sorting them all: a query of common words scores many thousands. */
function bestOf(hits: readonly Hit[], n: number): Hit[] {
  const top: Hit[] = [];
  for (const hit of hits) {
    if (top.length >= n && byScore(hit, top[n - 1] as Hit) >= 0) continue;
    let low = 0;
    let high = top.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (byScore(top[middle] as Hit, hit) <= 0) low = middle + 1;
      else high = middle;
    }
    top.splice(low, 0, hit);
    if (top.length > n) top.pop();
  }
  return top;
}

/** What the filter made of the best candidates: the ranking it was asked about, and whether it changed anything. */
export interface FilterOutcome {
  ranked: Hit[];
  /** Some candidate was rejected (the k-th score may fall). */
  rejecting: boolean;
  /** Some accepted item scored otherwise than its postings did (they bound it: `itemOf`). */
  rescored: boolean;
}

/**
 * The top-k collector, apart from the scorer: every item scored exactly, the filter's verdicts, and the best k scores
 * of items not rejected, whose least is the k-th score that pieces and candidates must reach.
 */
export class TopKCollector {
  readonly scored = new Map<number, Hit>();
  readonly rejected = new Set<number>();
  readonly accepted = new Set<number>();
  /** The best k scores of items not rejected, in descending order (rebuilt when the filter rejects). */
  #best: number[] = [];

  readonly topK: number;
  readonly minScore: number;
  /** Whether a hit's matched terms are listed from its postings (else from its item, `matchedTermsOf`). */
  readonly #listsMatched: boolean;

  constructor(topK: number, minScore: number, listsMatched: boolean) {
    this.topK = topK;
    this.minScore = minScore;
    this.#listsMatched = listsMatched;
  }

  /** Whether a bound (or score) can still make the answer: it reaches the threshold and is above minScore. */
  reaches(bound: number, threshold: number): boolean {
    return bound >= threshold && bound > this.minScore;
  }

  /** The k-th score (−∞ while fewer than k are scored). */
  kth(): number {
    return this.#best.length >= this.topK ? (this.#best.at(-1) ?? 0) : Number.NEGATIVE_INFINITY;
  }

  /** What a piece or a candidate must reach now: the k-th score, or minScore. */
  threshold(): number {
    return Math.max(this.kth(), this.minScore);
  }

  /** Whether an item is decided: scored, or rejected by the filter. */
  decided(id: number): boolean {
    return this.scored.has(id) || this.rejected.has(id);
  }

  /**
   * An item scored exactly is kept if it can still be among the best k (a filter that rejects some lowers the k-th
   * score and opens its piece again): a query of common words scores many thousands of items.
   */
  record(id: number, score: number, matched: () => string[]): void {
    // Without listsMatched, the answer's are listed from its item (`answer`).
    this.scored.set(id, { id, score, matchedTerms: this.#listsMatched ? matched() : [] });
    this.#keep(score);
  }

  #keep(score: number): void {
    const best = this.#best;
    if (best.length >= this.topK && score <= (best.at(-1) ?? 0)) return;
    const at = best.findIndex((other) => other < score);
    best.splice(at === -1 ? best.length : at, 0, score);
    if (best.length > this.topK) best.pop();
  }

  /**
   * Asks the filter about the best `asking` not yet asked about (the answer comes from the best `asking + topK`: the
   * filter may reject up to `asking` of them); an accepted item is scored from what it holds where `rescore` knows it.
   */
  async consult(
    asking: number,
    accept: (ids: number[]) => Promise<Set<number>>,
    rescore: (id: number) => number | undefined,
  ): Promise<FilterOutcome> {
    const ranked = bestOf(
      [...this.scored.values()].filter((hit) => !this.rejected.has(hit.id)),
      asking + this.topK,
    );
    const unasked = ranked.slice(0, asking).filter((hit) => !this.accepted.has(hit.id));
    const outcome = { ranked, rejecting: false, rescored: false };
    if (unasked.length === 0) return outcome;
    const kept = await accept(unasked.map((hit) => hit.id));
    for (const hit of unasked) {
      if (!kept.has(hit.id)) {
        this.rejected.add(hit.id);
        outcome.rejecting = true;
        continue;
      }
      this.accepted.add(hit.id);
      const score = rescore(hit.id) ?? hit.score;
      if (score === hit.score) continue;
      outcome.rescored = true;
      // Below the least score asked for (the item no longer holds what its postings say): it is no answer.
      if (score > this.minScore) this.scored.set(hit.id, { ...hit, score });
      else this.rejected.add(hit.id);
    }
    this.#best = [];
    for (const hit of this.scored.values()) if (!this.rejected.has(hit.id)) this.#keep(hit.score);
    return outcome;
  }

  /** The best k of those not rejected (ranked again where a score changed), their matched terms from `matchedTermsOf`. */
  answer({ ranked, rescored }: FilterOutcome, matchedTermsOf: ((id: number) => string[]) | undefined): Hit[] {
    return bestOf(
      (rescored ? [...this.scored.values()] : ranked).filter((hit) => !this.rejected.has(hit.id)),
      this.topK,
    ).map((hit) => (matchedTermsOf ? { ...hit, matchedTerms: matchedTermsOf(hit.id) } : hit));
  }
}

/** An item's score from what it holds, where the caller knows the item. */
export const rescoreWith =
  (itemOf: ((id: number) => ItemTerms | undefined) | undefined, itemScore: (item: ItemTerms) => number) =>
  (id: number): number | undefined => {
    const held = itemOf?.(id);
    return held ? itemScore(held) : undefined;
  };
