import type { AttributeValue, Item, ItemPatch, ItemWrite } from './schema.ts';

/** Applies a validated JSON Merge Patch (RFC 7396) to an item's writable fields. */
export function applyMergePatch(current: ItemWrite, patch: ItemPatch): Record<string, unknown> {
  const attributes: Record<string, AttributeValue> = { ...current.attributes };
  if (patch.attributes === null) {
    for (const key of Object.keys(attributes)) delete attributes[key];
  } else if (patch.attributes !== undefined) {
    for (const [key, value] of Object.entries(patch.attributes)) {
      if (value === null) delete attributes[key];
      else attributes[key] = value;
    }
  }
  return {
    name: patch.name ?? current.name,
    description: patch.description === null ? '' : (patch.description ?? current.description),
    tags: patch.tags === null ? [] : (patch.tags ?? current.tags),
    attributes,
  };
}

/** The writable fields of an item. */
export const writableFields = (item: Item): ItemWrite => ({
  name: item.name,
  description: item.description,
  tags: item.tags,
  attributes: item.attributes,
});

/** True when two sets of writable fields are equal (attribute order does not matter; tag order does). */
export function sameFields(a: ItemWrite, b: ItemWrite): boolean {
  if (a.name !== b.name || a.description !== b.description) return false;
  if (a.tags.length !== b.tags.length || a.tags.some((tag, i) => tag !== b.tags[i])) return false;
  const keys = Object.keys(a.attributes);
  if (keys.length !== Object.keys(b.attributes).length) return false;
  return keys.every((key) => Object.hasOwn(b.attributes, key) && a.attributes[key] === b.attributes[key]);
}
