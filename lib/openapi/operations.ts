import type { Operation } from '../auth/policy.ts';
import { JSON_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE } from '../http/types.ts';
import type { SchemaName } from './components.ts';
import type { ErrorStatus, headers } from './responses.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One route of the contract, in the terms the document needs. */
export interface OperationSpec {
  method: Method;
  path: string;
  operationId: Operation;
  tag: 'items' | 'retrieval' | 'document';
  summary: string;
  description: string;
  /** Keys of `components.parameters`. */
  parameters: readonly string[];
  body?: { schema: SchemaName; mediaTypes: readonly string[]; example: unknown };
  success: {
    status: 200 | 201 | 204;
    description: string;
    schema?: SchemaName;
    headers?: readonly (keyof typeof headers)[];
  };
  /** A GET that honours `If-None-Match` with a 304 (contract §4.1), and the success header that holds its tag. */
  notModified?: 'ETag' | 'PageETag';
  /** Statuses beyond those every operation can give (400, 401, 429, 500) and the 403 of a restricted one. */
  errors: readonly ErrorStatus[];
}

const JSON_BODY = [JSON_MEDIA_TYPE];
/** The database behind the items and the search index: failed, unavailable, timed out. */
const STORE = [502, 503, 504] as const;
/** A request with a JSON body: too large, wrong media type, invalid values. */
const WITH_BODY = [413, 415, 422, ...STORE] as const;
const ITEM = 'path.item_id';
const ITEM_EXAMPLE = {
  name: 'Trail Boot',
  description: 'Waterproof hiking boot',
  tags: ['outdoor'],
  attributes: { brand: 'acme' },
};
const FILTER_EXAMPLE = { tags: ['outdoor'], attributes: { brand: 'acme' } };

/** Every route of the contract (§3–§6). */
export const OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/items',
    operationId: 'listItems',
    tag: 'items',
    summary: 'List items',
    description:
      'Items ordered by `id` ascending, one page at a time. When more remain, the `Link` header names the next ' +
      'page; following the links visits every item exactly once. `/items/` is the same collection.',
    parameters: ['query.limit', 'query.cursor', 'header.If-None-Match'],
    success: {
      status: 200,
      description: 'One page of items.',
      schema: 'ItemList',
      headers: ['Link', 'PageETag', 'Cache-Control', 'Vary'],
    },
    notModified: 'PageETag',
    errors: [422, ...STORE],
  },
  {
    method: 'post',
    path: '/items',
    operationId: 'createItem',
    tag: 'items',
    summary: 'Create an item',
    description: 'Creates an item from the writable fields; fields left out take their defaults.',
    parameters: ['header.Idempotency-Key'],
    body: { schema: 'ItemWrite', mediaTypes: JSON_BODY, example: ITEM_EXAMPLE },
    success: {
      status: 201,
      description: 'The new item.',
      schema: 'Item',
      headers: ['Location', 'ETag', 'Idempotent-Replayed'],
    },
    errors: [409, ...WITH_BODY],
  },
  {
    method: 'get',
    path: '/items/{item_id}',
    operationId: 'getItem',
    tag: 'items',
    summary: 'Read an item',
    description: 'The item, with its version as `ETag`.',
    parameters: [ITEM, 'header.If-None-Match'],
    success: {
      status: 200,
      description: 'The item.',
      schema: 'Item',
      headers: ['ETag', 'Cache-Control', 'Vary'],
    },
    notModified: 'ETag',
    errors: [404, 422, ...STORE],
  },
  {
    method: 'put',
    path: '/items/{item_id}',
    operationId: 'replaceItem',
    tag: 'items',
    summary: 'Replace an item',
    description: 'Replaces the writable fields; fields left out return to their defaults.',
    parameters: [ITEM, 'header.If-Match'],
    body: { schema: 'ItemWrite', mediaTypes: JSON_BODY, example: ITEM_EXAMPLE },
    success: { status: 200, description: 'The item as replaced.', schema: 'Item', headers: ['ETag'] },
    errors: [404, 412, ...WITH_BODY],
  },
  {
    method: 'patch',
    path: '/items/{item_id}',
    operationId: 'patchItem',
    tag: 'items',
    summary: 'Patch an item',
    description:
      'Applies a JSON Merge Patch (RFC 7396) of the writable fields: a key present replaces, `null` returns a ' +
      'field to its default (inside `attributes`, removes that key); `"name": null` is refused. A patch that ' +
      'changes nothing leaves `version` and `updatedAt` as they were.',
    parameters: [ITEM, 'header.If-Match'],
    body: {
      schema: 'ItemPatch',
      mediaTypes: [MERGE_PATCH_MEDIA_TYPE, JSON_MEDIA_TYPE],
      example: { attributes: { brand: null, size: 42 } },
    },
    success: { status: 200, description: 'The item as patched.', schema: 'Item', headers: ['ETag'] },
    errors: [404, 412, ...WITH_BODY],
  },
  {
    method: 'delete',
    path: '/items/{item_id}',
    operationId: 'deleteItem',
    tag: 'items',
    summary: 'Delete an item',
    description: 'Deletes the item; its id is never reused.',
    parameters: [ITEM, 'header.If-Match'],
    success: { status: 204, description: 'Deleted; no body.' },
    errors: [404, 412, 422, ...STORE],
  },
  {
    method: 'post',
    path: '/retrieve',
    operationId: 'retrieve',
    tag: 'retrieval',
    summary: 'Retrieve items',
    description:
      'Ranks the items matching at least one query term and the filter by BM25 over name, description and ' +
      'tags. A change to an item shows here within 2 seconds.',
    parameters: [],
    body: {
      schema: 'RetrieveRequest',
      mediaTypes: JSON_BODY,
      example: { query: 'waterproof hiking boots', topK: 5, filter: FILTER_EXAMPLE, minScore: 0 },
    },
    success: { status: 200, description: 'The ranked results.', schema: 'RetrieveResponse' },
    errors: WITH_BODY,
  },
  {
    method: 'post',
    path: '/generate',
    operationId: 'generate',
    tag: 'retrieval',
    summary: 'Generate a grounded answer',
    description:
      'Answers from the items retrieval returns for the query only, citing them; with no matching item the ' +
      'answer is not grounded and has no citations.',
    parameters: [],
    body: {
      schema: 'GenerateRequest',
      mediaTypes: JSON_BODY,
      example: { query: 'What should I wear for rainy hikes?', topK: 5, maxTokens: 512, temperature: 0 },
    },
    success: { status: 200, description: 'The answer and its citations.', schema: 'GenerateResponse' },
    errors: WITH_BODY,
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    tag: 'document',
    summary: 'This document',
    description: 'The OpenAPI 3.1 document of this API, built from the schemas the handlers validate with.',
    parameters: [],
    success: {
      status: 200,
      description: 'The OpenAPI document.',
      schema: 'OpenApiDocument',
      headers: ['Cache-Control', 'Vary'],
    },
    errors: [],
  },
];
