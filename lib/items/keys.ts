/**
 * Key design of the single table (pk, sk are strings):
 *   ITEM     / <16-digit zero-padded id>   an item; one partition, so a Query lists items in id order
 *   COUNTER  / ITEM                         the id counter (atomic ADD; never decremented, so ids are never reused)
 * Other concepts (search postings, idempotency records) use their own pk prefixes.
 */
export const ITEM_PK = 'ITEM';
export const COUNTER_KEY = { pk: 'COUNTER', sk: 'ITEM' } as const;

/** Sort key of an item: its id zero-padded to 16 digits, so string order is id order. */
export const itemSk = (id: number): string => String(id).padStart(16, '0');

/** The table key of an item. */
export const itemKey = (id: number) => ({ pk: ITEM_PK, sk: itemSk(id) });
