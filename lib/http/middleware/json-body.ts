import httpJsonBodyParser from '@middy/http-json-body-parser';
import { BadRequestError } from '../errors.ts';
import type { ApiMiddleware, ApiRequest } from '../types.ts';

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

const PARSER = '@middy/http-json-body-parser';

/** Whether the error is the JSON parser's refusal of the body (it answers 422 for all of them). */
function refusedByParser(error: unknown): boolean {
  const cause: unknown = isObject(error) ? Reflect.get(error, 'cause') : undefined;
  return isObject(cause) && Reflect.get(cause, 'package') === PARSER;
}

/**
 * @middy/http-json-body-parser, parsing the body (decoded text, after `bodyLimit` and `mediaType`) into
 * `event.body`, and a step that maps its refusals to the contract. Its own content type check is off (see
 * `mediaType`).
 *
 * middy answers 422 both for a key it refuses and for text that does not parse; it also refuses a valid body nested
 * a few thousand levels deep, because it parses with a reviver, which V8 runs recursively until the stack runs out.
 * So a refused text is parsed again without one (iteratively): text that still does not parse is a 400; otherwise
 * its refused keys go to `request.internal.forbiddenKeys` and `validate` (the route's input validation) answers
 * with every problem (422, each with its path); the own-property value JSON.parse builds goes no further than the
 * schemas, which refuse them. A body the parser refused never reaches the handler: no route's schema admits one
 * nested deeper than the parser's stack, and should one ever, it stays refused as the parser refused it.
 */
export function jsonBody(
  validate: (request: ApiRequest) => void = () => {},
): [ReturnType<typeof httpJsonBodyParser>, ApiMiddleware] {
  return [
    httpJsonBodyParser({ disableContentTypeCheck: true }),
    {
      name: 'jsonBodyRefusals',
      onError: (request) => {
        if (!refusedByParser(request.error)) return;
        // The parser sets `event.body` only once it has parsed it: here it is still the text.
        const { body } = request.event;
        try {
          request.event.body = parseAgain(typeof body === 'string' ? body : '');
          const forbidden = forbiddenKeyPaths(request.event.body);
          if (forbidden.length > 0) request.internal.forbiddenKeys = forbidden;
          validate(request);
        } catch (error) {
          request.error = error instanceof Error ? error : request.error;
        }
      },
    },
  ];
}

/** JSON.parse without a reviver, or the contract's 400. */
function parseAgain(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError('Request body is not valid JSON');
  }
}
