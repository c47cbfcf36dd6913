import { createdResponse } from '../lib/http/items.ts';
import { httpRoute } from '../lib/http/route.ts';
import { createIdempotency } from '../lib/idempotency/store.ts';
import { createItemOperation } from '../lib/items/create.ts';
import { createItemRepository } from '../lib/items/repository.ts';
import { ItemSchema, ItemWriteSchema } from '../lib/items/schema.ts';
import { getRuntime } from '../lib/runtime.ts';

const { table, verifier } = getRuntime();
const items = createItemRepository(table);
const create = createItemOperation({
  items,
  once: createIdempotency(table),
});

export const handler = httpRoute('createItem', {
  verifier,
  inputs: { body: ItemWriteSchema },
  output: ItemSchema,
}).handler(async ({ input, caller, idempotencyKey, event }) =>
  createdResponse(await create(input.body, { caller, idempotencyKey, payload: event.body })),
);
