import { itemSk } from '../items/keys.ts';

/**
 * Index records in the items table (see lib/items/keys.ts for the items themselves):
 *   T#<term> / P#<impact>#<id>   a posting: item <id> contains <term>; attributes i (id), tf, dl
 *   T#<term> / DF                the term's document frequency (= its number of postings)
 *   D#<id>   / DOC               what is indexed for item <id>: version, dl, terms {term: tf}, rev, pending
 *   STATS    / CORPUS            docs (N) and len (sum of dl) over indexed items
 * Postings sort by descending impact, so a query reads the strongest postings of a term first.
 */
export const STATS_KEY = { pk: 'STATS', sk: 'CORPUS' } as const;
export const POSTING_PREFIX = 'P#';

/** The fixed document length impacts are computed at, so a posting's key never depends on corpus state. */
export const REFERENCE_LENGTH = 64;

export const termPk = (term: string): string => `T#${term}`;
export const dfKey = (term: string) => ({ pk: termPk(term), sk: 'DF' });
export const docKey = (id: number) => ({ pk: `D#${id}`, sk: 'DOC' });

/** 0..999999, larger = stronger: the BM25 saturation at the reference length, quantized (rounded up). */
export const impactOf = (saturationAtReference: number): number =>
  Math.min(999_999, Math.ceil(saturationAtReference * 1_000_000));

/** Posting sort key: inverted impact first (ascending key = descending impact), then the item id. */
export const postingSk = (impact: number, id: number): string =>
  `${POSTING_PREFIX}${String(999_999 - impact).padStart(6, '0')}#${itemSk(id)}`;

/** The impact encoded in a posting sort key. */
export const impactFromSk = (sk: string): number =>
  999_999 - Number(sk.slice(POSTING_PREFIX.length, POSTING_PREFIX.length + 6));
