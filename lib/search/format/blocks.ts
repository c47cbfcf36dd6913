import { saturation } from './bm25.ts';
import { impactOf, REFERENCE_LENGTH } from './keys.ts';

/**
 * Posting blocks: a term's postings are stored many to a DynamoDB item, in ascending item id, because a read costs
 * per item returned far more than per byte (see BENCHMARKS.md). A block is the text `Δid:tf:dl,…` in base 36, each
 * id stored as its distance from the previous one (the first from 0), as Lucene and tantivy delta-code doc ids:
 * ~8 bytes a posting, so a full block stays near 1 KB, one write unit. These functions are pure: the codec and the
 * edits the posting writer (postings.ts) plans its writes with.
 */
export interface BlockPosting {
  id: number;
  tf: number;
  dl: number;
}

/** Postings a block holds at most: ~8 bytes each, so a full block (with its keys) is about one write unit. */
export const BLOCK_CAPACITY = 96;

const ENTRY = /^([0-9a-z]{1,11}):([1-9a-z][0-9a-z]{0,5}):([1-9a-z][0-9a-z]{0,5})$/;

export function encodeBlock(postings: readonly BlockPosting[]): string {
  let previous = 0;
  return postings
    .map((p) => {
      const entry = `${(p.id - previous).toString(36)}:${p.tf.toString(36)}:${p.dl.toString(36)}`;
      previous = p.id;
      return entry;
    })
    .join(',');
}

/**
 * Parses a stored block; throws unless every entry is well formed and the ids strictly ascend. A tail may be empty
 * (the term's postings are all in sealed blocks, or all were removed).
 */
export function decodeBlock(text: string): BlockPosting[] {
  const postings: BlockPosting[] = [];
  if (text === '') return postings;
  let previous = 0;
  for (const entry of text.split(',')) {
    const match = ENTRY.exec(entry);
    const delta = match ? Number.parseInt(match[1] ?? '', 36) : 0;
    if (!match || !(delta > 0) || !Number.isSafeInteger(previous + delta))
      throw new Error(`Malformed posting block entry "${entry}"`);
    previous += delta;
    postings.push({
      id: previous,
      tf: Number.parseInt(match[2] ?? '', 36),
      dl: Number.parseInt(match[3] ?? '', 36),
    });
  }
  return postings;
}

/** A posting's impact: its saturation at the reference length, quantized up (keys.ts). */
export const impactOfPosting = ({ tf, dl }: { tf: number; dl: number }): number =>
  impactOf(saturation({ tf, dl, avgdl: REFERENCE_LENGTH }));

/** The largest impact in a block (0 when empty): the bound a query reads from its directory entry. */
export const blockMax = (postings: readonly BlockPosting[]): number =>
  postings.reduce((max, p) => Math.max(max, impactOfPosting(p)), 0);

/**
 * A block's postings after a batch of changes, in id order: `add` puts a posting (a posting of that id with another
 * tf or dl is replaced), `remove` takes an id out unless `add` puts it back. Returns the new postings, how many ids
 * were added and removed (the df's change) and whether anything changed at all (a replacement changes no count).
 */
export function edit(
  postings: readonly BlockPosting[],
  add: readonly BlockPosting[],
  remove: ReadonlySet<number>,
): { postings: BlockPosting[]; added: number; removed: number; changed: boolean } {
  const byId = new Map(postings.map((p) => [p.id, p]));
  let added = 0;
  let removed = 0;
  let changed = false;
  const adding = new Set(add.map((p) => p.id));
  for (const id of remove) {
    if (adding.has(id) || !byId.has(id)) continue;
    byId.delete(id);
    removed++;
    changed = true;
  }
  for (const posting of add) {
    const present = byId.get(posting.id);
    if (present && present.tf === posting.tf && present.dl === posting.dl) continue;
    if (!present) added++;
    byId.set(posting.id, posting);
    changed = true;
  }
  return { postings: [...byId.values()].sort((a, b) => a.id - b.id), added, removed, changed };
}

/**
 * Cuts postings over capacity into the fewest blocks that fit, as even as possible, larger ones first; returns the
 * postings whole when they fit.
 */
export function splitInto(postings: readonly BlockPosting[], capacity: number): BlockPosting[][] {
  const count = Math.max(1, Math.ceil(postings.length / capacity));
  const chunks: BlockPosting[][] = [];
  for (let taken = 0, i = 0; i < count; i++) {
    const size = Math.ceil((postings.length - taken) / (count - i));
    chunks.push(postings.slice(taken, taken + size));
    taken += size;
  }
  return chunks;
}

/**
 * A full tail seals whole blocks of its oldest postings and keeps the rest: appends (new items have the largest ids)
 * then fill sealed blocks completely, where an even split would leave them half full. Returns [sealed…, tail].
 */
export function sealTail(postings: readonly BlockPosting[], capacity: number): BlockPosting[][] {
  const chunks: BlockPosting[][] = [];
  let at = 0;
  while (postings.length - at > capacity) {
    chunks.push(postings.slice(at, at + capacity));
    at += capacity;
  }
  chunks.push(postings.slice(at));
  return chunks;
}
