/**
 * The share of a lease's writable time (the lease less its fence) a pass is sized to take: a pass that goes at the
 * pace of the last one leaves more than half that time unused, so a table that slows down meanwhile still lets it
 * land.
 */
export const PASS_SHARE = 0.4;

/**
 * How many items a writer's next pass takes (docs/index-format.md, the writer's protocol): all it is given while
 * passes end well inside their leases (on AWS a stream batch of 1,000 takes about a second); on a slow table (a loaded
 * machine, throttled keys), as many as its last pass indexed in PASS_SHARE of the lease's writable time, so each pass
 * lands instead of being cut by its fence and split and repeated by the stream. A pass that failed halves the next.
 * Kept per writer: a warm stream consumer sizes its passes by what it last saw.
 */
export class PassSize {
  readonly #targetMs: number;
  readonly #writableMs: number;
  #limit = Number.POSITIVE_INFINITY;

  constructor({ leaseMs, fenceMs }: { leaseMs: number; fenceMs: number }) {
    this.#writableMs = leaseMs - fenceMs;
    this.#targetMs = this.#writableMs * PASS_SHARE;
  }

  /**
   * Whether a pass can still land, `elapsedMs` into it once its `items` are written ahead: one write each,
   * `concurrency` at a time, as its homes' writes will go (one a home). If not, the next pass takes what fits the
   * target at that pace, and this one stops before its postings, the costly part, instead of at its fence.
   */
  fits(
    pass: { items: number; homes: number; concurrency: number },
    elapsedMs: number,
    writeAheadMs: number,
  ): boolean {
    const waves = (n: number) => Math.max(1, Math.ceil(n / pass.concurrency));
    const predictedMs = elapsedMs + (writeAheadMs * waves(pass.homes)) / waves(pass.items);
    if (predictedMs <= this.#writableMs) return true;
    this.#limit = Math.max(1, Math.floor((pass.items * this.#targetMs) / predictedMs));
    return false;
  }

  /** How many of `left` items the next pass takes (at least one). */
  take(left: number): number {
    return Math.max(1, Math.min(left, this.#limit));
  }

  /** A pass indexed `items` in `ms`: the next takes what fits the target at that pace. */
  finished(items: number, ms: number): void {
    if (items <= 0) return;
    this.#limit = ms <= 0 ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor((items * this.#targetMs) / ms));
  }

  /** A pass of `items` failed (its fence, a table that stopped answering): the next takes half as many, or fewer. */
  failed(items: number): void {
    this.#limit = Math.max(1, Math.min(this.#limit, Math.floor(items / 2)));
  }
}
