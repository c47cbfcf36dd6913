import { authorize, type Operation, POLICY } from '../../auth/policy.ts';
import type { TokenVerifier } from '../../auth/verifier.ts';
import { logger } from '../../observability.ts';
import { UnauthorizedError } from '../errors.ts';
import { type ApiMiddleware, MAX_AUTHORIZATION_BYTES } from '../types.ts';

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i;

/**
 * Verifies a presented token on every operation (public ones included), keeping the caller in `request.internal`,
 * then applies the role policy.
 * Only the token is trusted: `requestContext.authorizer` and similar inputs are never read.
 */
export function authenticate(verifier: TokenVerifier, operation: Operation): ApiMiddleware {
  // A route that always needs a token fetches the pool's JWKS during init rather than on its first request;
  // a public route leaves the verifier unbuilt until a request presents a token.
  if (POLICY[operation] !== 'public') {
    verifier
      .hydrate()
      .catch((error: unknown) => logger.warn('JWKS prefetch failed; will fetch on demand', { error }));
  }
  return {
    name: 'authenticate',
    before: async ({ event, internal }) => {
      const header = event.headers.authorization;
      if (header !== undefined) {
        if (header.length > MAX_AUTHORIZATION_BYTES) throw new UnauthorizedError(true);
        const token = BEARER.exec(header)?.[1];
        if (!token) throw new UnauthorizedError(true);
        try {
          internal.caller = await verifier.verify(token);
        } catch (cause) {
          throw new UnauthorizedError(true, { cause });
        }
      }
      authorize(operation, internal.caller);
    },
  };
}
