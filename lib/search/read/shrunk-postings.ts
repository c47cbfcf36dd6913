import { type PostingColumns, raisedImpact } from '../format/blocks.ts';
import type { Shrunk } from '../format/keys.ts';

/**
 * The shrunk set (docs/index-format.md) as a query applies it: the postings of its items are scored at the items'
 * lengths and tfs (their cuts), a ghost left out; a block whose range holds an item shorter than its postings' norm
 * bounds what its posting reaches there (blocks.ts `raisedImpact`): a lower tf only lowers a score.
 */
export class ShrunkPostings {
  /** The set in id order. */
  readonly #entries: readonly Shrunk[];
  readonly #byId: Map<number, Shrunk>;

  constructor(entries: readonly Shrunk[]) {
    this.#entries = entries;
    this.#byId = new Map(entries.map((entry) => [entry.id, entry]));
  }

  /**
   * A term's postings with its shrunk items' lengths and cut tfs, without its ghosts: a copy where any differ, the
   * columns themselves otherwise. The columns are left as read: a container keeps a sealed block's (block-cache.ts)
   * and a later query applies its own shrunk set to them, which may no longer hold an entry this one cut.
   */
  atLengths(columns: PostingColumns, term: string): PostingColumns {
    if (this.#byId.size === 0) return columns;
    const scored = { columns, ghost: false };
    for (let i = 0; i < columns.length; i++) {
      const entry = this.#byId.get(columns.ids[i] as number);
      if (!entry) continue;
      if (scored.columns === columns)
        scored.columns = { ...columns, tfs: columns.tfs.slice(), dls: columns.dls.slice() };
      scored.columns.dls[i] = entry.dl;
      const tf = Object.hasOwn(entry.cut, term) ? entry.cut[term] : undefined;
      if (tf !== undefined) scored.columns.tfs[i] = tf;
      if (tf === 0) scored.ghost = true;
    }
    return scored.ghost ? withoutGhosts(scored.columns) : scored.columns;
  }

  /** The maximum impact `max` of a block over (after, to], raised for every shrunk item in that range. */
  raised(after: number, to: number, max: number): number {
    const shrunk = this.#entries;
    let bound = max;
    for (let i = firstShrunkAfter(shrunk, after); i < shrunk.length; i++) {
      const entry = shrunk[i] as Shrunk;
      if (entry.id > to) break;
      bound = Math.max(bound, raisedImpact(max, entry.norm, entry.dl));
    }
    return bound;
  }
}

/** Columns without their postings of tf 0 (the shrunk set's ghosts). */
function withoutGhosts(columns: PostingColumns): PostingColumns {
  const keep: number[] = [];
  for (let i = 0; i < columns.length; i++) if ((columns.tfs[i] as number) > 0) keep.push(i);
  const pick = (values: Float64Array) => Float64Array.from(keep, (i) => values[i] as number);
  return { length: keep.length, ids: pick(columns.ids), tfs: pick(columns.tfs), dls: pick(columns.dls) };
}

/** The first entry of the shrunk set (in id order) with an id above `after`. */
function firstShrunkAfter(shrunk: readonly Shrunk[], after: number): number {
  let [low, high] = [0, shrunk.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((shrunk[middle] as Shrunk).id <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
