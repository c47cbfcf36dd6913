// The document's component schemas: the very valibot schemas the handlers validate with, and what their JSON
// Schema cannot say.
import type * as v from 'valibot';
import { GenerateRequestSchema, GenerateResponseSchema } from '../generate/schema.ts';
import { ItemListSchema, ItemPatchSchema, ItemSchema, ItemWriteSchema } from '../items/schema.ts';
import { RetrieveRequestSchema, RetrieveResponseSchema } from '../search/read/schema.ts';
import {
  MAX_CHILDREN,
  MAX_WHERE_DEPTH,
  MAX_WHERE_LEAVES,
  whereComponentSchemas,
} from '../search/read/where-schema.ts';
import { ErrorSchema, ItemNotFoundSchema, OpenApiDocumentSchema } from './schemas.ts';

/** The component schemas: the very valibot schemas the handlers validate with. */
export const componentSchemaSources = {
  Item: ItemSchema,
  ItemList: ItemListSchema,
  ItemWrite: ItemWriteSchema,
  ItemPatch: ItemPatchSchema,
  RetrieveRequest: RetrieveRequestSchema,
  RetrieveResponse: RetrieveResponseSchema,
  GenerateRequest: GenerateRequestSchema,
  GenerateResponse: GenerateResponseSchema,
  Error: ErrorSchema,
  ItemNotFound: ItemNotFoundSchema,
  OpenApiDocument: OpenApiDocumentSchema,
  ...whereComponentSchemas,
} satisfies Record<string, v.GenericSchema>;
export type SchemaName = keyof typeof componentSchemaSources;

/** What JSON Schema cannot say about the component schemas (trimming, lowercasing, rules across fields). */
export const componentDescriptions: Partial<Record<SchemaName, string>> = {
  Item: 'An item, as every response carries it (contract §2).',
  ItemWrite:
    'The writable fields, for create and replace; fields left out take their defaults, any other key is a ' +
    '422. `name` is trimmed first; tags are lowercased first and must be distinct.',
  ItemPatch:
    'A JSON Merge Patch of the writable fields: `null` returns a field to its default (inside `attributes`, ' +
    'removes that key). The patched item must still be valid (at most 20 attributes).',
  RetrieveRequest: '`query` is trimmed first; `filter.tags` are lowercased first.',
  GenerateRequest: '`query` is trimmed first; `filter.tags` are lowercased first.',
};

/**
 * Advice to client and test generators, appended to a component's own description: the nested `where` levels
 * bound the nesting for validators, and a generator that expands every one of them builds trees of millions of
 * nodes for one body.
 */
export const generatorNotes: Partial<Record<SchemaName, string>> = {
  Where:
    `For client and test generators: the ${MAX_WHERE_DEPTH} \`WhereExpressionDepth\` levels only bound the ` +
    `nesting, and each composite holds up to ${MAX_CHILDREN} expressions, so expanding them all is ` +
    'exponential. Treat `Where` as an opaque JSON object in generated types, and when generating values bound ' +
    `the recursion (one or two levels of \`andAll\`/\`orAll\` cover every operator) and keep to ` +
    `${MAX_WHERE_LEAVES} leaves; the service validates the whole expression and answers 422 naming the field.`,
};
