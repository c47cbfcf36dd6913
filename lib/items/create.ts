import * as v from 'valibot';
import type { Caller } from '../auth/caller.ts';
import type { createIdempotency } from '../idempotency/store.ts';
import type { ItemRepository } from './repository.ts';
import { type Item, ItemSchema, type ItemWrite } from './schema.ts';

/** What a create did: the item, and whether it is the first create's, replayed for a repeat of its request. */
export interface CreateResult {
  item: Item;
  replayed: boolean;
}

/**
 * The item an idempotency record holds. A record written before the create returned the item alone holds the whole
 * 201 response (`{ statusCode, body, headers }`, the rest derived from the item), and records live 24 hours.
 */
const RecordedItem = v.union([
  ItemSchema,
  v.pipe(
    v.object({ body: ItemSchema }),
    v.transform(({ body }) => body),
  ),
]);

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
    const { result, replayed } = await once(scope, RecordedItem, (commit) =>
      items.create(fields, { alsoWrite: commit }),
    );
    return { item: result, replayed };
  };
}
