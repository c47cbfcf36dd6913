import * as v from 'valibot';
import { toDetails } from '../../validation.ts';
import { type ErrorDetail, InternalServerError, ValidationError } from '../errors.ts';
import type { ApiMiddleware, ApiRequest } from '../types.ts';

/** The schemas of a route's inputs; each one left out is not read. */
export interface InputSchemas {
  path?: v.GenericSchema;
  query?: v.GenericSchema;
  body?: v.GenericSchema;
}

type Out<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;
/** The validated input a handler receives for the given schemas. */
export type InputOf<S extends InputSchemas> = {
  path: Out<S['path']>;
  query: Out<S['query']>;
  body: Out<S['body']>;
};

/** A refused key is reported unless a problem at it, or at a field that holds it, already is. */
const reported = (details: readonly ErrorDetail[], path: string) =>
  details.some(
    (detail) => detail.path === 'body' || path === detail.path || path.startsWith(`${detail.path}.`),
  );

/**
 * Validates path, query and body together into `request.internal.input`; any problem is a 422 listing every one,
 * keys the JSON parser refused (`request.internal.forbiddenKeys`, such as `__proto__`) included.
 */
export function inputValidation(schemas: InputSchemas): (request: ApiRequest) => void {
  return ({ event, internal }) => {
    const details: ErrorDetail[] = [];
    const check = (schema: v.GenericSchema | undefined, value: unknown, prefix: string, root: string) => {
      if (!schema) return undefined;
      const result = v.safeParse(schema, value);
      if (result.success) return result.output;
      details.push(...toDetails(result.issues, prefix, root));
      return undefined;
    };
    const input = {
      path: check(schemas.path, event.pathParameters ?? {}, 'path.', 'path'),
      query: check(schemas.query, event.queryStringParameters ?? {}, 'query.', 'query'),
      body: check(schemas.body, event.body, '', 'body'),
    };
    for (const path of internal.forbiddenKeys ?? []) {
      if (!reported(details, path)) details.push({ path, message: 'is a forbidden key' });
    }
    if (details.length > 0) throw new ValidationError(details);
    internal.input = input;
  };
}

/** The validation of `inputValidation` as a middleware (→ 422). */
export function validateInput(schemas: InputSchemas): ApiMiddleware {
  return { name: 'validateInput', before: inputValidation(schemas) };
}

/** Validates the response body before it leaves: a body that breaks the schema is a 500, never a response. */
export function validateOutput(schema: v.GenericSchema): ApiMiddleware {
  return {
    name: 'validateOutput',
    after: ({ response }) => {
      if (!response || response.body === undefined) return;
      const result = v.safeParse(schema, response.body);
      if (!result.success) throw new InternalServerError(new v.ValiError(result.issues));
    },
  };
}
