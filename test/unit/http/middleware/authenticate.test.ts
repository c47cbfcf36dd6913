import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { type Operation, POLICY } from '../../../../lib/auth/policy.ts';
import { createTokenVerifier } from '../../../../lib/auth/verifier.ts';
import { authenticate } from '../../../../lib/http/middleware/authenticate.ts';
import { createIssuer, mintToken } from '../../../../scripts/local/issuer.ts';
import { apiGatewayEvent, gatewayEvent, refused, runAlone, stateOf } from '../events.ts';

// Real RS256 tokens from a locally generated key, verified by the service's own verifier.
const issuer = createIssuer();
const verifier = createTokenVerifier({
  userPoolId: issuer.meta.userPoolId,
  clientId: issuer.meta.clientId,
  jwks: issuer.jwks,
});
const bearer = (token: string) => apiGatewayEvent({ headers: { authorization: `Bearer ${token}` } });
const CHALLENGE = 'Bearer realm="items"';
const INVALID = { statusCode: 401, headers: { 'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"` } };
const OPERATIONS = Object.keys(POLICY) as Operation[];

describe('authenticate', () => {
  it('lets an anonymous caller read a public operation', async () => {
    expect(
      stateOf(await runAlone(authenticate(verifier, 'getItem'), apiGatewayEvent())).caller,
    ).toBeUndefined();
  });

  it('refuses an anonymous caller on a restricted operation with 401 and the bare challenge', async () => {
    expect(refused(await runAlone(authenticate(verifier, 'createItem'), apiGatewayEvent()))).toMatchObject({
      statusCode: 401,
      headers: { 'WWW-Authenticate': CHALLENGE },
    });
  });

  it('gives the handler the verified caller; the scheme name is case-insensitive', async () => {
    const token = mintToken(issuer, { groups: ['editor'], sub: 'user-1' });
    const event = apiGatewayEvent({ headers: { authorization: `bEaReR ${token}` } });
    expect(stateOf(await runAlone(authenticate(verifier, 'createItem'), event)).caller).toMatchObject({
      sub: 'user-1',
      groups: ['editor'],
    });
  });

  it('refuses a verified caller without a permitted role with 403 insufficient_scope', async () => {
    const event = bearer(mintToken(issuer, { groups: ['reader'] }));
    expect(refused(await runAlone(authenticate(verifier, 'deleteItem'), event))).toMatchObject({
      statusCode: 403,
      message: 'Forbidden',
      headers: { 'WWW-Authenticate': `${CHALLENGE}, error="insufficient_scope"` },
    });
  });

  it.each([
    ['an expired token', () => `Bearer ${mintToken(issuer, { expiresIn: -60 })}`],
    ['another scheme', () => `Basic ${mintToken(issuer)}`],
    ['a header over 8 KB', () => `Bearer ${'a'.repeat(8 * 1024)}`],
    ['garbage', () => 'Bearer not-a-token'],
  ])('refuses %s with 401 invalid_token, even on a public operation', async (_, header) => {
    const event = apiGatewayEvent({ headers: { authorization: header() } });
    expect(refused(await runAlone(authenticate(verifier, 'listItems'), event))).toMatchObject(INVALID);
  });

  const notAToken = fc.string({ maxLength: 80 });
  test.prop([gatewayEvent(), fc.constantFrom(...OPERATIONS), notAToken])(
    'refuses with 401 every presented credential that is not a valid token, on every operation',
    async (event, operation, credential) => {
      const headers = { ...event.headers, authorization: `Bearer ${credential}` };
      expect(refused(await runAlone(authenticate(verifier, operation), { ...event, headers }))).toMatchObject(
        INVALID,
      );
    },
  );

  test.prop([
    gatewayEvent(),
    fc.constantFrom(...OPERATIONS),
    fc.subarray(['reader', 'editor', 'admin', 'Admin']),
  ])(
    'admits a valid token exactly when one of its groups is a role the operation allows',
    async (event, operation, groups) => {
      const token = mintToken(issuer, { groups });
      const outcome = await runAlone(authenticate(verifier, operation), {
        ...event,
        headers: { ...event.headers, authorization: `Bearer ${token}` },
      });
      const allowed = POLICY[operation];
      if (allowed === 'public' || groups.some((g) => (allowed as readonly string[]).includes(g)))
        expect(stateOf(outcome).caller?.groups).toStrictEqual(groups);
      else expect(refused(outcome)).toMatchObject({ statusCode: 403 });
    },
  );
});
