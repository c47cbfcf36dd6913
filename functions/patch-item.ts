import { itemResponse } from '../lib/http/items.ts';
import { httpRoute } from '../lib/http/route.ts';
import { JSON_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE } from '../lib/http/types.ts';
import { applyMergePatch, writableFields } from '../lib/items/merge-patch.ts';
import { createItemRepository } from '../lib/items/repository.ts';
import { ItemPatchSchema, ItemPathSchema, ItemSchema, ItemWriteSchema } from '../lib/items/schema.ts';
import { getRuntime } from '../lib/runtime.ts';
import { parseOrReject } from '../lib/validation.ts';

const { table, verifier } = getRuntime();
const items = createItemRepository(table);

export const handler = httpRoute('patchItem', {
  verifier,
  inputs: { path: ItemPathSchema, body: ItemPatchSchema },
  output: ItemSchema,
  mediaTypes: [JSON_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE],
}).handler(async ({ input: { path, body }, ifMatch }) => {
  // The merged result is validated again: a patch can push attributes past 20 keys.
  const change = (current: Parameters<typeof writableFields>[0]) =>
    parseOrReject(ItemWriteSchema, applyMergePatch(writableFields(current), body));
  const item = await items.update(path.item_id, change, { ifMatch });
  return itemResponse(item);
});
