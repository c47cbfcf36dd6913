import type { Caller } from '../auth/caller.ts';
import type { createIdempotency, StoredResponse } from '../idempotency/store.ts';
import { etag } from './http.ts';
import type { ItemRepository } from './repository.ts';
import type { Item, ItemWrite } from './schema.ts';

const created = (item: Item): StoredResponse => ({
  statusCode: 201,
  body: item,
  headers: { Location: `/items/${item.id}`, ETag: etag(item) },
});

/** Creates an item; with an Idempotency-Key, a repeat by the same caller with the same body replays the first answer. */
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
  ): Promise<StoredResponse> => {
    if (request.idempotencyKey === undefined || !request.caller) return created(await items.create(fields));
    const scope = { caller: request.caller.sub, key: request.idempotencyKey, payload: request.payload };
    const result = await once(scope, async (commit) =>
      created(await items.create(fields, { alsoWrite: (item) => commit(created(item)) })),
    );
    const { replayed, ...response } = result;
    return replayed
      ? { ...response, headers: { ...response.headers, 'Idempotent-Replayed': 'true' } }
      : response;
  };
}
