import type { ItemRepository } from '../../items/repository.ts';
import { logger } from '../../observability.ts';
import { reindexBatch } from '../write/batch.ts';
import type { Indexer } from '../write/indexer.ts';
import type { Checkpoint, CheckpointWriter } from './checkpoint.ts';
import { estimateTotal, type Progress, Watermark } from './progress.ts';

export interface ItemPagesOptions {
  indexer: Indexer;
  checkpoints: CheckpointWriter;
  /** The checkpoint this run resumes after, if any. */
  checkpoint: Checkpoint | undefined;
  /** The id counter's value (ids are never reused, so it bounds the total). */
  counter: number;
  /** Pages of ids being indexed at once. */
  concurrency: number;
  onProgress: ((progress: Progress) => void) | undefined;
  now: () => number;
  /** When the run started, by `now`. */
  started: number;
}

/**
 * The first phase of a full reindex: every item, in pages of ids (keys only: an item that does not parse is still
 * listed), a few pages at a time, each one `reindexItems` batch. Pages may finish in any order; the checkpoint moves
 * past a page only once it and every page before it are done (progress.ts `Watermark`). The first page that fails
 * stops the listing, and the phase throws its error once the pages begun have settled.
 */
export class ItemPages {
  /** Items indexed by this run, and those whose stored record is invalid (logged, not indexed). */
  readonly done = { items: 0, invalid: 0 };
  readonly #options: ItemPagesOptions;
  readonly #watermark: Watermark;
  readonly #startId: number;
  readonly #listing: { listed: number; lastListedId: number };
  readonly #running = new Set<Promise<void>>();
  #failure: { error: unknown } | undefined;

  constructor(options: ItemPagesOptions) {
    this.#options = options;
    this.#startId = options.checkpoint?.throughId ?? 0;
    this.#watermark = new Watermark(this.#startId, options.checkpoint?.items ?? 0);
    this.#listing = { listed: 0, lastListedId: this.#startId };
  }

  /** Lists and indexes every item after the checkpoint, `pageSize` ids a page; reports the final progress. */
  async run(items: ItemRepository, pageSize: number): Promise<void> {
    for (let afterId = this.#startId, more = true; more && !this.#failure; ) {
      const page = await items.listIds({ afterId, limit: pageSize });
      const lastId = page.ids.at(-1);
      more = page.more;
      if (lastId === undefined) break;
      afterId = lastId;
      this.#start(page.ids, lastId);
      while (this.#running.size >= this.#options.concurrency) await Promise.race(this.#running);
    }
    await Promise.all(this.#running);
    await this.#options.checkpoints.saved;
    if (this.#failure) throw this.#failure.error;
    this.#options.onProgress?.(this.progress(true));
  }

  /** The progress so far: items done (with those of the run resumed), the estimated total, the rate, time left. */
  progress(final: boolean): Progress {
    const doneBefore = this.#options.checkpoint?.items ?? 0;
    const total = estimateTotal({
      counter: this.#options.counter,
      startId: this.#startId,
      doneBefore,
      ...this.#listing,
    });
    const rate = this.done.items / Math.max(0.001, (this.#options.now() - this.#options.started) / 1000);
    const done = doneBefore + this.done.items;
    return { done, total, rate, leftMs: rate > 0 ? ((total - done) / rate) * 1000 : undefined, final };
  }

  #start(ids: number[], lastId: number) {
    this.#listing.listed += ids.length;
    this.#listing.lastListedId = lastId;
    const handle = this.#watermark.start(lastId, ids.length);
    const task: Promise<void> = this.#index(ids, handle)
      .catch((error) => {
        this.#failure ??= { error };
      })
      .finally(() => this.#running.delete(task));
    this.#running.add(task);
  }

  async #index(ids: number[], handle: number) {
    const { invalid, failed } = await reindexBatch(this.#options.indexer, ids);
    for (const { id, error } of invalid)
      logger.error('item cannot be indexed: its stored record is invalid', { itemId: id, error });
    if (failed[0]) throw failed[0].error;
    this.done.items += ids.length;
    this.done.invalid += invalid.length;
    if (this.#watermark.finish(handle))
      await this.#options.checkpoints.save({
        throughId: this.#watermark.throughId,
        items: this.#watermark.items,
      });
    this.#options.onProgress?.(this.progress(false));
  }
}
