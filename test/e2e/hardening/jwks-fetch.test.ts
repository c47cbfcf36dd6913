// Issue #6, part 1 (in process): in network mode (on AWS, no JWKS given) unknown kids must not cause one JWKS
// request each. The verifier there is `CognitoJwtVerifier.create(properties)` with aws-jwt-verify's default
// SimpleJwksCache (and its default penalty box); here the same cache gets a counting fetcher instead of HTTPS.
import { randomUUID } from 'node:crypto';
import { CognitoJwtVerifier } from 'aws-jwt-verify';
import { KidNotFoundInJwksError, WaitPeriodNotYetEndedJwkError } from 'aws-jwt-verify/error';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { describe, expect, it } from 'vitest';
import { createIssuer, mintToken } from '../../../scripts/local/issuer.ts';

describe('JWKS fetching in network mode', () => {
  it('fetches the JWKS at most once for a flood of unknown kids within the penalty window', async () => {
    const issuer = createIssuer();
    const fetched: string[] = [];
    const jwksCache = new SimpleJwksCache({
      fetcher: {
        fetch: async (uri: string) => {
          fetched.push(uri);
          return new TextEncoder().encode(JSON.stringify(issuer.jwks)).buffer;
        },
      },
    });
    const verifier = CognitoJwtVerifier.create(
      { userPoolId: issuer.meta.userPoolId, clientId: issuer.meta.clientId, tokenUse: 'access' },
      { jwksCache },
    );
    const unknownKid = () =>
      mintToken(
        { ...issuer, privateJwk: { ...issuer.privateJwk, kid: randomUUID() } },
        { groups: ['admin'] },
      );

    await expect(verifier.verify(mintToken(issuer, { groups: ['reader'] }))).resolves.toMatchObject({
      'cognito:groups': ['reader'],
    });
    expect(fetched).toStrictEqual([`${issuer.meta.issuer}/.well-known/jwks.json`]);

    const refusal = (token: string) =>
      verifier.verify(token).then(
        () => 'verified',
        (error: unknown) =>
          error instanceof KidNotFoundInJwksError || error instanceof WaitPeriodNotYetEndedJwkError
            ? 'refused for its kid'
            : error,
      );
    const sequential: unknown[] = [];
    for (let i = 0; i < 50; i++) sequential.push(await refusal(unknownKid()));
    const parallel = await Promise.all(Array.from({ length: 50 }, () => refusal(unknownKid())));
    expect([...sequential, ...parallel]).toStrictEqual(Array(100).fill('refused for its kid'));
    // One refetch (a rotated key could be new), then the penalty box refuses without fetching.
    expect(fetched.length).toBeLessThanOrEqual(2);
    // The known key still verifies, from the cache.
    await expect(verifier.verify(mintToken(issuer, { groups: ['editor'] }))).resolves.toMatchObject({
      'cognito:groups': ['editor'],
    });
    expect(fetched.length).toBeLessThanOrEqual(2);
  });
});
