import type { MiddlewareObj } from '@middy/core';
import { authorize, type Operation } from '../auth/policy.ts';
import type { TokenVerifier } from '../auth/verifier.ts';
import { type ApiEvent, type HttpResult, MAX_AUTHORIZATION_BYTES } from '../http/types.ts';
import { UnauthorizedError } from '../http-errors.ts';

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i;

/**
 * Verifies a presented token on every operation (public ones included), then applies the role policy.
 * Only the token is trusted: `requestContext.authorizer` and similar inputs are never read.
 */
export function authenticate(
  verifier: TokenVerifier,
  operation: Operation,
): MiddlewareObj<ApiEvent, HttpResult> {
  return {
    name: 'authenticate',
    before: async ({ event }) => {
      const header = event.headers.authorization;
      if (header !== undefined) {
        if (header.length > MAX_AUTHORIZATION_BYTES) throw new UnauthorizedError(true);
        const token = BEARER.exec(header)?.[1];
        if (!token) throw new UnauthorizedError(true);
        try {
          event.caller = await verifier.verify(token);
        } catch (cause) {
          throw new UnauthorizedError(true, { cause });
        }
      }
      authorize(operation, event.caller);
    },
  };
}
