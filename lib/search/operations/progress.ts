/**
 * Reindex bookkeeping that needs no table: which prefix of the id space is done while pages finish out of order,
 * and the progress figures (items done, items/s, time left; scripts/progress.ts prints them).
 */

/**
 * Pages of ids are started in id order and may finish in any order. The watermark is the last id of the longest
 * run of finished pages from the start: every id up to it is done, so a resumed run may start after it.
 */
export class Watermark {
  #pages: { lastId: number; items: number; finished: boolean }[] = [];
  #first = 0;
  throughId: number;
  items: number;
  constructor(throughId: number, items: number) {
    this.throughId = throughId;
    this.items = items;
  }

  /** Registers the next page (ids after the previous page's); returns its handle. */
  start(lastId: number, items: number): number {
    this.#pages.push({ lastId, items, finished: false });
    return this.#pages.length - 1;
  }

  /** Marks a page finished; true when that moved the watermark. */
  finish(handle: number): boolean {
    const page = this.#pages[handle];
    if (!page) throw new Error(`no page ${handle}`);
    page.finished = true;
    let moved = false;
    for (let next = this.#pages[this.#first]; next?.finished; next = this.#pages[this.#first]) {
      this.throughId = next.lastId;
      this.items += next.items;
      this.#first++;
      moved = true;
    }
    return moved;
  }
}

export interface Progress {
  /** Items done, including those of the run this one resumed. */
  done: number;
  /** Estimated items in all (ids are never reused, so the id counter bounds it; see `estimateTotal`). */
  total: number;
  /** Items per second in this run. */
  rate: number;
  /** Estimated time left, or undefined before anything is done. */
  leftMs: number | undefined;
  final: boolean;
}

/**
 * The total to expect: what is done or listed, plus the ids not yet listed (up to the id counter) thinned by the
 * share of ids listed so far that still have an item (deleted items leave gaps).
 */
export function estimateTotal({
  counter,
  startId,
  doneBefore,
  listed,
  lastListedId,
}: {
  counter: number;
  startId: number;
  doneBefore: number;
  listed: number;
  lastListedId: number;
}): number {
  const span = lastListedId - startId;
  const density = span > 0 ? Math.min(1, listed / span) : 1;
  return doneBefore + listed + Math.round(Math.max(0, counter - lastListedId) * density);
}
