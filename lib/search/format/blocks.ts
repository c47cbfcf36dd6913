import { B, K1, saturation } from './bm25.ts';
import { impactOf, REFERENCE_LENGTH } from './keys.ts';

/**
 * Posting blocks (their bytes: docs/index-format.md): a term's postings are stored many to a DynamoDB item, in
 * ascending item id, because a read costs per item returned far more than per byte. Delta-coded varints, as Lucene and
 * tantivy pack doc ids, take about 3 bytes a posting, so a Query over a run of blocks, charged by its bytes, reads
 * about 1,300 postings per 4 KB. These functions are pure: the codec and the edits the posting writer plans its
 * writes with.
 */
export interface BlockPosting {
  id: number;
  tf: number;
  dl: number;
}

/** Postings a block holds at most: ~3 bytes each, so a full block (with its keys) stays well under a write unit. */
export const BLOCK_CAPACITY = 192;

/** Appends `value` (a safe non-negative integer) as an unsigned LEB128 varint. */
function pushVarint(bytes: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
}

/** A block's bytes (its `p` attribute) from its postings in id order. */
export function encodeBlock(postings: readonly BlockPosting[]): Uint8Array {
  const bytes: number[] = [];
  let previous = 0;
  for (const p of postings) {
    pushVarint(bytes, p.id - previous);
    pushVarint(bytes, p.tf);
    pushVarint(bytes, p.dl);
    previous = p.id;
  }
  return Uint8Array.from(bytes);
}

const malformed = (what: string) => new Error(`Malformed posting block entry (${what})`);

/** Reads unsigned LEB128 varints one after another; each throws unless complete and within 2^53. */
class Varints {
  readonly #bytes: Uint8Array;
  /** The next byte to read. */
  #at = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  done(): boolean {
    return this.#at >= this.#bytes.length;
  }

  next(): number {
    let value = 0;
    let scale = 1;
    while (true) {
      const byte = this.#bytes[this.#at++];
      if (byte === undefined) throw malformed('a varint cut short');
      value += (byte & 0x7f) * scale;
      if (!Number.isSafeInteger(value)) throw malformed('a value past 2^53');
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }
}

/** A block's bytes as objects: `decodeColumns`'s postings. */
function decodeBinary(bytes: Uint8Array): BlockPosting[] {
  const { length, ids, tfs, dls } = decodeColumns(bytes);
  return Array.from({ length }, (_, i) => ({
    id: ids[i] as number,
    tf: tfs[i] as number,
    dl: dls[i] as number,
  }));
}

/**
 * Parses a stored block (its `p` attribute); throws unless every entry is well formed and the ids strictly ascend. A
 * tail may be empty (its postings are all sealed, or were removed); a missing attribute reads as empty.
 */
export function decodeBlock(stored: unknown): BlockPosting[] {
  if (stored instanceof Uint8Array) return decodeBinary(stored);
  if (stored === undefined || stored === null) return [];
  throw malformed(`a ${typeof stored}`);
}

/**
 * A block's postings as the reader keeps them: three columns, no object per posting (a query at 100,000 items decodes
 * tens of thousands of postings, and objects of three fields cost it most of its garbage collection).
 */
export interface PostingColumns {
  length: number;
  ids: Float64Array;
  tfs: Float64Array;
  dls: Float64Array;
}

const EMPTY_COLUMNS: PostingColumns = {
  length: 0,
  ids: new Float64Array(0),
  tfs: new Float64Array(0),
  dls: new Float64Array(0),
};

/**
 * `decodeBlock` into columns, decoded in place: throws unless every varint is complete and ids strictly ascend within
 * 2^53; a missing attribute reads as empty.
 */
export function decodeColumns(stored: unknown): PostingColumns {
  if (stored === undefined || stored === null) return EMPTY_COLUMNS;
  if (!(stored instanceof Uint8Array)) throw malformed(`a ${typeof stored}`);
  // Every posting takes three bytes at least.
  const room = Math.floor(stored.length / 3);
  const columns = new Float64Array(3 * room);
  const ids = columns.subarray(0, room);
  const tfs = columns.subarray(room, 2 * room);
  const dls = columns.subarray(2 * room);
  const reader = new Varints(stored);
  let previous = 0;
  let n = 0;
  while (!reader.done()) {
    const delta = reader.next();
    const tf = reader.next();
    const dl = reader.next();
    if (!(delta > 0) || !Number.isSafeInteger(previous + delta)) throw malformed('ids not ascending');
    if (tf < 1 || dl < 1) throw malformed('a zero count');
    previous += delta;
    ids[n] = previous;
    tfs[n] = tf;
    dls[n] = dl;
    n++;
  }
  return { length: n, ids, tfs, dls };
}

/** A posting's impact: its saturation at the reference length, quantized up (keys.ts). */
export const impactOfPosting = ({ tf, dl }: { tf: number; dl: number }): number =>
  impactOf(saturation({ tf, dl, avgdl: REFERENCE_LENGTH }));

/**
 * What a posting bounded by the impact `max` can reach once its item, whose postings carry the length `norm`, is
 * `dl` long (keys.ts, the shrunk set): the saturation tf / (tf + K(length)) rises as the length falls, and a posting
 * whose impact at `norm` is at most `max` has tf ≤ μ·K(norm) / (1 − μ) (μ = max / 10^6), so at `dl` it saturates at
 * most μ·K(norm) / (μ·K(norm) + (1 − μ)·K(dl)): quantized up, one step more for the arithmetic's rounding.
 */
export function raisedImpact(max: number, norm: number, dl: number): number {
  if (dl >= norm) return max;
  const mu = Math.min(max, 999_999) / 1_000_000;
  const k = (length: number) => K1 * (1 - B + B * (length / REFERENCE_LENGTH));
  const raised = (mu * k(norm)) / (mu * k(norm) + (1 - mu) * k(dl));
  return Math.max(max, Math.min(999_999, Math.ceil(raised * 1_000_000) + 1));
}

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
 * Splits postings over capacity into the fewest blocks that fit, as even as possible, larger ones first; returns the
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

/**
 * A term's directory as its tail carries it while the term has few sealed blocks (its bytes: docs/index-format.md),
 * about 5 bytes a block.
 */
export type DirectoryEntry = [end: number, max: number];
/** A tail's copy of its directory (its `d` attribute) from the sealed blocks' entries in id order. */
export function encodeDirectory(entries: readonly DirectoryEntry[]): Uint8Array {
  const bytes: number[] = [];
  let previous = 0;
  for (const [end, max] of entries) {
    pushVarint(bytes, end - previous);
    pushVarint(bytes, max);
    previous = end;
  }
  return Uint8Array.from(bytes);
}
/** Throws unless every varint is complete and the ends strictly ascend within 2^53. */
export function decodeDirectory(bytes: Uint8Array): DirectoryEntry[] {
  const entries: DirectoryEntry[] = [];
  const reader = new Varints(bytes);
  let previous = 0;
  while (!reader.done()) {
    const delta = reader.next();
    const max = reader.next();
    if (!(delta > 0) || !Number.isSafeInteger(previous + delta)) throw malformed('block ends not ascending');
    previous += delta;
    entries.push([previous, max]);
  }
  return entries;
}
/**
 * Sealed blocks a tail lists at most (a sixth of a block's capacity, at least 2: 32 for blocks of 192, about 160
 * bytes beside a full tail's ~600): past that, the directory is in its pages alone.
 */
export const tailDirectoryLimit = (capacity: number): number => Math.max(2, Math.floor(capacity / 6));
