/**
 * Key design of the items in the single table (pk, sk are strings). This module is the only place that knows it.
 *
 *   ITEM#<shard> / <16-digit zero-padded id>   an item; shard = floor(id / ID_BLOCK) mod ITEM_SHARDS
 *   COUNTER      / ITEM                        the id counter: containers lease blocks of ids from it (one atomic ADD
 *                                              a block); never decremented, so ids are never reused
 *
 * Consecutive blocks of ids live on consecutive shards, so containers writing from the blocks they leased write to
 * different partition keys (no hot key), while a list page of consecutive ids reads one or two blocks (one or two
 * Queries). Other concepts (search postings, idempotency records) use their own pk prefixes.
 */

/** Partition keys the items are spread over: 10,000 creates/s stay under half a key's 1,000 WCU/s (README). */
export const ITEM_SHARDS = 64;
/** Ids per block: a block's ids share a partition key, and the next block is on the next one. */
export const ID_BLOCK = 100;

export const COUNTER_KEY = { pk: 'COUNTER', sk: 'ITEM' } as const;

const SHARD_PREFIX = 'ITEM#';

/** Sort key of an item: its id zero-padded to 16 digits, so string order is id order within a partition. */
export const itemSk = (id: number): string => String(id).padStart(16, '0');

/** The block an id belongs to. */
export const blockOf = (id: number): number => Math.floor(id / ID_BLOCK);

/** The first and last id of a block. */
export const blockRange = (block: number) => ({
  first: block * ID_BLOCK,
  last: block * ID_BLOCK + ID_BLOCK - 1,
});

/** The partition key of a shard (0 ≤ shard < ITEM_SHARDS). */
export const shardPk = (shard: number): string => `${SHARD_PREFIX}${shard}`;

/** The partition key holding a block's items. */
export const blockPk = (block: number): string => shardPk(block % ITEM_SHARDS);

/** The table key of an item. */
export const itemKey = (id: number) => ({ pk: blockPk(blockOf(id)), sk: itemSk(id) });

const SHARD_PK = /^ITEM#(0|[1-9][0-9]*)$/;
const ITEM_SK = /^[0-9]{16}$/;

/** The id of the item a table key names, or undefined when the key is not an item's. */
export function itemIdOf(key: { pk?: string | undefined; sk?: string | undefined }): number | undefined {
  const { pk, sk } = key;
  if (pk === undefined || sk === undefined || !ITEM_SK.test(sk)) return undefined;
  if (!SHARD_PK.test(pk)) return undefined;
  const id = Number(sk);
  if (!Number.isSafeInteger(id) || id < 1) return undefined;
  return pk === itemKey(id).pk ? id : undefined;
}

/** True when a table key names an item. */
export const isItemKey = (key: { pk?: string | undefined; sk?: string | undefined }): boolean =>
  itemIdOf(key) !== undefined;
