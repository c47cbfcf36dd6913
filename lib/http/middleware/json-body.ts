import type { MiddlewareObj, Request } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { BadRequestError } from '../errors.ts';
import type { ApiEvent, HttpResult } from '../types.ts';

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/**
 * The paths (`attributes.__proto__`) of the keys @middy/http-json-body-parser refuses: `__proto__`, and a
 * `constructor` holding a `prototype`, shallowest first. Iterative, so a body nested thousands of levels deep is
 * walked too.
 */
export function forbiddenKeyPaths(value: unknown): string[] {
  const found: string[] = [];
  // Breadth first, so shallower keys come first.
  const pending: [unknown, string][] = [[value, '']];
  for (let i = 0; i < pending.length; i++) {
    const [node, path] = pending[i] ?? [];
    if (!isObject(node)) continue;
    for (const [key, child] of Object.entries(node)) {
      const at = path ? `${path}.${key}` : key;
      if (
        key === '__proto__' ||
        (key === 'constructor' && isObject(child) && Object.hasOwn(child, 'prototype'))
      )
        found.push(at);
      else pending.push([child, at]);
    }
  }
  return found;
}

/**
 * Parses the body (decoded text, after `bodyLimit` and `mediaType`) with @middy/http-json-body-parser into
 * `event.body`, and maps its refusals to the contract. Its own content type check is off (see `mediaType`).
 *
 * middy answers 422 both for a key it refuses and for text that does not parse; it also refuses a valid body nested
 * a few thousand levels deep, because it parses with a reviver, which V8 runs recursively until the stack runs out.
 * So a refused text is parsed again without one (iteratively): text that still does not parse is a 400; otherwise
 * its refused keys are left in `event.forbiddenKeys` for validation to report with every other problem (422, each
 * with its path), and the own-property value JSON.parse builds goes no further than the schemas, which refuse them.
 */
export function jsonBody(): MiddlewareObj<ApiEvent, HttpResult> {
  const { before: parse } = httpJsonBodyParser<APIGatewayProxyEventV2>({ disableContentTypeCheck: true });
  if (!parse) throw new Error('@middy/http-json-body-parser has no before step');
  return {
    name: 'jsonBody',
    before: async (request) => {
      const { event } = request;
      const text = typeof event.body === 'string' ? event.body : '';
      try {
        await parse(request as unknown as Request<APIGatewayProxyEventV2>);
      } catch {
        event.body = parseAgain(text);
        const forbidden = forbiddenKeyPaths(event.body);
        if (forbidden.length > 0) event.forbiddenKeys = forbidden;
      }
    },
  };
}

/** JSON.parse without a reviver, or the contract's 400. */
function parseAgain(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError('Request body is not valid JSON');
  }
}
