import { CognitoJwtVerifier } from 'aws-jwt-verify';
import type { Jwks } from 'aws-jwt-verify/jwk';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';

/** A caller whose access token verified. */
export interface Caller {
  sub: string;
  username: string | undefined;
  groups: readonly string[];
}

export interface TokenVerifier {
  /** Resolves to the caller, or rejects when the token fails any check. */
  verify(token: string): Promise<Caller>;
  /** Loads the JWKS ahead of the first request (a no-op when it was given). */
  hydrate(): Promise<void>;
}

export interface TokenVerifierOptions {
  userPoolId: string;
  clientId: string;
  /** The pool's JWKS, given instead of fetched (the local issuer). Then the verifier never fetches. */
  jwks?: Jwks | undefined;
}

/** Thrown for claims aws-jwt-verify accepts but the contract refuses. */
export class TokenClaimError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenClaimError';
  }
}

const offlineFetcher = {
  fetch: () => Promise.reject(new Error('JWKS fetching is disabled: the JWKS was given')),
};

/** Verifies Cognito access tokens: RS256 signature by a pool key, issuer, client, token use, exp, groups. */
export function createTokenVerifier({ userPoolId, clientId, jwks }: TokenVerifierOptions): TokenVerifier {
  const properties = { userPoolId, clientId, tokenUse: 'access' } as const;
  const verifier = jwks
    ? CognitoJwtVerifier.create(properties, { jwksCache: new SimpleJwksCache({ fetcher: offlineFetcher }) })
    : CognitoJwtVerifier.create(properties);
  if (jwks) verifier.cacheJwks(jwks);

  return {
    async verify(token) {
      const payload = await verifier.verify(token);
      // aws-jwt-verify accepts a token without exp and a string cognito:groups; the contract does not.
      if (typeof payload.exp !== 'number') throw new TokenClaimError('exp is required');
      const groups: unknown = payload['cognito:groups'];
      if (groups !== undefined && !(Array.isArray(groups) && groups.every((g) => typeof g === 'string'))) {
        throw new TokenClaimError('cognito:groups must be an array of strings');
      }
      if (typeof payload.sub !== 'string') throw new TokenClaimError('sub is required');
      const username = typeof payload.username === 'string' ? payload.username : undefined;
      return { sub: payload.sub, username, groups: groups ?? [] };
    },
    async hydrate() {
      if (!jwks) await verifier.hydrate();
    },
  };
}
