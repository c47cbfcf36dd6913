import type { Caller } from '../auth/caller.ts';
import type { createIdempotency } from '../idempotency/store.ts';
import type { ItemRepository } from './repository.ts';
import { type Item, ItemSchema, type ItemWrite } from './schema.ts';

/** What a create did: the item, and whether it is the first create's, replayed for a repeat of its request. */
export interface CreateResult {
  item: Item;
  replayed: boolean;
}

/** Creates an item; with an Idempotency-Key, a repeat by the same caller with the same body replays the first item. */
export function createItemOperation({
  items,
  once,
}: {
  items: ItemRepository;
  once: ReturnType<typeof createIdempotency>;
}) {
  return async (
    fields: ItemWrite,
    request: { caller: Caller | undefined; idempotencyKey: string | undefined; payload: unknown },
  ): Promise<CreateResult> => {
    if (request.idempotencyKey === undefined || !request.caller)
      return { item: await items.create(fields), replayed: false };
    const scope = { caller: request.caller.sub, key: request.idempotencyKey, payload: request.payload };
    const { result, replayed } = await once(scope, ItemSchema, (commit) =>
      items.create(fields, { alsoWrite: commit }),
    );
    return { item: result, replayed };
  };
}
