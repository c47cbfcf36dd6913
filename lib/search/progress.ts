/**
 * Reindex bookkeeping that needs no table: which prefix of the id space is done while pages finish out of order,
 * and the progress line (items done, items/s, time left).
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

const duration = (ms: number) => {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
};

export function formatProgress({ done, total, rate, leftMs, final }: Progress): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const percent = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
  const left = final ? 'done' : leftMs === undefined ? 'time left unknown' : `~${duration(leftMs)} left`;
  return `reindex: ${count(done)} of ~${count(Math.max(total, done))} items (${percent}%), ${count(Math.round(rate))} items/s, ${left}`;
}

/** Writes progress lines at most once per `intervalMs` (by `now`), and always the final one. */
export function progressPrinter({
  write,
  now = Date.now,
  intervalMs = 1000,
}: {
  write: (line: string) => void;
  now?: () => number;
  intervalMs?: number;
}): (progress: Progress) => void {
  let last: number | undefined;
  return (progress) => {
    const at = now();
    if (!progress.final && last !== undefined && at - last < intervalMs) return;
    last = at;
    write(formatProgress(progress));
  };
}
