import { CognitoJwtVerifier } from 'aws-jwt-verify';
import type { Jwks } from 'aws-jwt-verify/jwk';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { Caller } from './caller.ts';
import { TokenClaimError } from './errors.ts';
import { createVerifiedTokenCache, type VerifiedTokenCache } from './token-cache.ts';

export interface TokenVerifier {
  /** Resolves to the caller, or rejects when the token fails any check. */
  verify(token: string): Promise<Caller>;
  /** Loads the JWKS ahead of the first request that carries a token (a no-op when it was given). */
  hydrate(): Promise<void>;
}

export interface TokenVerifierOptions {
  userPoolId: string;
  clientId: string;
  /** The pool's JWKS, given instead of fetched (the local issuer). Then the verifier never fetches. */
  jwks?: Jwks | undefined;
  /** Tokens already verified, re-checked for expiry on every use (default: up to 1,000 tokens). */
  cache?: VerifiedTokenCache;
}

const offlineFetcher = {
  fetch: () => Promise.reject(new Error('JWKS fetching is disabled: the JWKS was given')),
};

/** What the service reads of an access token, beyond what aws-jwt-verify checks itself. */
interface Claims {
  sub: string;
  exp: number;
  groups: string[];
  username: string | undefined;
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * The claims of a token aws-jwt-verify verified, or a TokenClaimError naming the first the contract refuses:
 * aws-jwt-verify checks `exp` only when present and accepts a string `cognito:groups`; the contract does not.
 * (Written out rather than as a valibot schema: one more schema costs every bundle half a kilobyte.)
 */
function parseClaims(payload: Record<string, unknown>): Claims {
  const { sub, exp, username, 'cognito:groups': groups = [] } = payload;
  if (typeof sub !== 'string') throw new TokenClaimError('sub is required');
  if (typeof exp !== 'number') throw new TokenClaimError('exp is required');
  if (!isStrings(groups)) throw new TokenClaimError('cognito:groups must be an array of strings');
  return { sub, username: typeof username === 'string' ? username : undefined, groups, exp };
}

/** Verifies Cognito access tokens: RS256 signature by a pool key, issuer, client, token use, exp, groups. */
export function createTokenVerifier({
  userPoolId,
  clientId,
  jwks,
  cache = createVerifiedTokenCache(1000),
}: TokenVerifierOptions): TokenVerifier {
  const build = () => {
    const properties = { userPoolId, clientId, tokenUse: 'access' } as const;
    const created = jwks
      ? CognitoJwtVerifier.create(properties, { jwksCache: new SimpleJwksCache({ fetcher: offlineFetcher }) })
      : CognitoJwtVerifier.create(properties);
    if (jwks) created.cacheJwks(jwks);
    return created;
  };
  // Built on first use: a cold start that serves a request without a token (public routes) never pays for it.
  const built: { verifier?: ReturnType<typeof build> } = {};

  return {
    async verify(token) {
      // A token is verified in full once (signature, claims); a repeat of the exact same token is only
      // checked for expiry. An RS256 verification costs a few hundred microseconds of every warm request.
      const cached = cache.get(token, Date.now() / 1000);
      if (cached) return cached;
      built.verifier ??= build();
      const checked: { claims?: Claims } = {};
      // The contract's own claim checks run inside aws-jwt-verify, after its standard ones (customJwtCheck).
      await built.verifier.verify(token, {
        customJwtCheck: ({ payload }) => {
          checked.claims = parseClaims(payload);
        },
      });
      if (!checked.claims) throw new TokenClaimError('claims were not checked');
      const { exp, ...caller } = checked.claims;
      cache.set(token, caller, exp);
      return caller;
    },
    async hydrate() {
      if (jwks) return;
      built.verifier ??= build();
      await built.verifier.hydrate();
    },
  };
}
