/**
 * Posting blocks: a term's postings are stored many to a DynamoDB item, in ascending key order, because a read
 * costs per item returned far more than per byte (see BENCHMARKS.md). A block is the text `key:tf:dl,…`.
 * These functions are pure: the codec of a block's text and the edits of its postings, which the posting writer
 * (postings.ts) plans its writes with.
 */
export interface BlockPosting {
  /** `<inverted impact>#<id>` (see keys.ts). */
  key: string;
  tf: number;
  dl: number;
}

/** Postings a block holds at most (~30 bytes each: a full block is under 4 KB, one read unit). */
export const BLOCK_CAPACITY = 128;

const ENTRY = /^(\d{6}#\d{16}):([1-9]\d{0,8}):([1-9]\d{0,8})$/;

export const encodeBlock = (postings: readonly BlockPosting[]): string =>
  postings.map((p) => `${p.key}:${p.tf}:${p.dl}`).join(',');

/**
 * Parses a stored block; throws unless every entry is well formed and the keys strictly ascend. The last block of a
 * split term may be empty (postings.ts keeps it, as the record that says the term is split).
 */
export function decodeBlock(text: string): BlockPosting[] {
  const postings: BlockPosting[] = [];
  if (text === '') return postings;
  let previous = '';
  for (const entry of text.split(',')) {
    const match = ENTRY.exec(entry);
    const key = match?.[1];
    if (!match || key === undefined || key <= previous)
      throw new Error(`Malformed posting block entry "${entry}"`);
    postings.push({ key, tf: Number(match[2]), dl: Number(match[3]) });
    previous = key;
  }
  return postings;
}

/** The index of the first posting whose key is not below `key`. */
function lowerBound(postings: readonly BlockPosting[], key: string): number {
  let low = 0;
  let high = postings.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((postings[middle]?.key ?? '') < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The block's postings with `posting` added in order, or undefined when its key is already there. */
export function withPosting(
  postings: readonly BlockPosting[],
  posting: BlockPosting,
): BlockPosting[] | undefined {
  const at = lowerBound(postings, posting.key);
  if (postings[at]?.key === posting.key) return undefined;
  return [...postings.slice(0, at), posting, ...postings.slice(at)];
}

/**
 * A block over capacity splits in two halves: the lower half becomes a new block ending at its last key, the
 * upper half keeps the block's place (and its end). Returns [lower, upper], or undefined when it fits.
 */
export function split(
  postings: readonly BlockPosting[],
  capacity: number,
): [BlockPosting[], BlockPosting[]] | undefined {
  if (postings.length <= capacity) return undefined;
  const half = Math.ceil(postings.length / 2);
  return [postings.slice(0, half), postings.slice(half)];
}

/**
 * A block's postings after a batch of changes: `add` (keys already there are skipped) and `remove` (keys not there
 * are skipped), in key order. Returns the new postings and how many were actually added and removed.
 */
export function edit(
  postings: readonly BlockPosting[],
  add: readonly BlockPosting[],
  remove: ReadonlySet<string>,
): { postings: BlockPosting[]; added: number; removed: number } {
  const kept = postings.filter((p) => !remove.has(p.key));
  const present = new Set(postings.map((p) => p.key));
  const fresh = add.filter((p) => !present.has(p.key));
  const result = [...kept, ...fresh].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (let i = 1; i < result.length; i++)
    if (result[i - 1]?.key === result[i]?.key) throw new Error(`Posting ${result[i]?.key} added twice`);
  return { postings: result, added: fresh.length, removed: postings.length - kept.length };
}

/**
 * Cuts postings over capacity into the fewest blocks that fit, as even as possible, larger ones first (for one
 * posting over capacity that is `split`'s two halves). Returns the postings whole when they fit.
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
