/**
 * The share of the time a writer has left (to its deadline, less its fence) a pass is sized to take: a pass that goes
 * at the pace of the last one leaves more than half that time unused, so a table that slows down meanwhile still lets
 * it land.
 */
export const PASS_SHARE = 0.4;

/**
 * How many items a writer's next pass takes (docs/index-format.md, the writer's protocol). A pass renews its lease,
 * so only the writer's deadline bounds it (a Lambda invocation's end): with none, a pass takes all it is given; with
 * one, as many as fit PASS_SHARE of the time left at the last pass's pace, so each pass lands before the invocation
 * ends instead of being cut and repeated by the stream. A pass that failed halves the next. Kept per writer: a warm
 * stream consumer sizes its passes by what it last saw.
 */
export class PassSize {
  /** The last pace seen (by a pass that finished, or a write-ahead too slow to land); none: never timed. */
  #msPerItem: number | undefined;
  /** At most this many items, after a pass that failed; reset by one that finishes. */
  #cap = Number.POSITIVE_INFINITY;

  /**
   * Whether a pass can still land within `writableMs` of its start, `elapsedMs` into it once its `items` are written
   * ahead: one write each, `concurrency` at a time, as its homes' writes will go (one a home). If not, the next pass
   * takes what fits at that pace, and this one stops before its postings, the costly part, rather than at its
   * deadline.
   */
  fits(
    pass: { items: number; homes: number; concurrency: number },
    timing: { elapsedMs: number; writeAheadMs: number; writableMs: number },
  ): boolean {
    const waves = (n: number) => Math.max(1, Math.ceil(n / pass.concurrency));
    const predictedMs = timing.elapsedMs + (timing.writeAheadMs * waves(pass.homes)) / waves(pass.items);
    if (predictedMs <= timing.writableMs) return true;
    this.#msPerItem = predictedMs / pass.items;
    this.#cap = Math.min(this.#cap, this.#fitting(pass.items, timing.writableMs));
    return false;
  }

  /** How many of `left` items the next pass takes (at least one), with `writableMs` left to write them. */
  take(left: number, writableMs: number): number {
    return Math.max(1, Math.min(left, this.#cap, this.#fitting(left, writableMs)));
  }

  /** A pass indexed `items` in `ms`: the next takes what fits its time at that pace. */
  finished(items: number, ms: number): void {
    if (items <= 0) return;
    this.#msPerItem = ms / items;
    this.#cap = Number.POSITIVE_INFINITY;
  }

  /** A pass of `items` failed (its fence, a table that stopped answering): the next takes half as many, or fewer. */
  failed(items: number): void {
    this.#cap = Math.max(1, Math.min(this.#cap, Math.floor(items / 2)));
  }

  /** Items that fit PASS_SHARE of `writableMs` at the last pace (`all` while none is known or time is unbounded). */
  #fitting(all: number, writableMs: number): number {
    if (!this.#msPerItem || writableMs === Number.POSITIVE_INFINITY) return all;
    return Math.max(1, Math.floor((writableMs * PASS_SHARE) / this.#msPerItem));
  }
}
