import * as v from 'valibot';
import { itemKey } from './keys.ts';
import { type Item, ItemSchema } from './schema.ts';

/** The table holds `attributes` as JSON text: DynamoDB numbers cannot hold every finite double (1e308, 5e-324). */
export const toRecord = (item: Item) => ({
  ...itemKey(item.id),
  id: item.id,
  name: item.name,
  description: item.description,
  tags: item.tags,
  attributes: JSON.stringify(item.attributes),
  createdAt: item.createdAt,
  updatedAt: item.updatedAt,
  version: item.version,
});

const RecordSchema = v.object({ attributes: v.string() });

/** Parses a table record back into an item; a record that breaks the schema is an error, never a response. */
export function fromRecord(record: Record<string, unknown>): Item {
  const { attributes } = v.parse(RecordSchema, record);
  return v.parse(ItemSchema, {
    id: record.id,
    name: record.name,
    description: record.description,
    tags: record.tags,
    attributes: JSON.parse(attributes),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    version: record.version,
  });
}
