import { createHmac, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TokenClaimError } from '../../../lib/auth/errors.ts';
import { createTokenVerifier } from '../../../lib/auth/verifier.ts';
import { cognitoClaims, createIssuer, mintToken, signJwt } from '../../../scripts/local/issuer.ts';

const issuer = createIssuer();
const verifier = createTokenVerifier({
  userPoolId: issuer.meta.userPoolId,
  clientId: issuer.meta.clientId,
  jwks: issuer.jwks,
});
const header = { kid: issuer.privateJwk.kid, alg: 'RS256' };
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const sign = (payload: Record<string, unknown>, h: Record<string, unknown> = header) =>
  signJwt(h, payload, issuer.privateJwk);
const claims = (overrides: Record<string, unknown> = {}) => ({
  ...cognitoClaims(issuer, { groups: ['editor'], sub: 'user-1' }),
  ...overrides,
});

describe('createTokenVerifier', () => {
  it('accepts a Cognito access token and returns the caller', async () => {
    await expect(
      verifier.verify(mintToken(issuer, { groups: ['editor', 'reader'], sub: 'user-1' })),
    ).resolves.toStrictEqual({
      sub: 'user-1',
      username: 'user-1',
      groups: ['editor', 'reader'],
    });
  });

  it('accepts a token without groups as a caller with no roles', async () => {
    await expect(verifier.verify(mintToken(issuer, { sub: 'u' }))).resolves.toMatchObject({ groups: [] });
  });

  const { privateKey: attackerKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const attackerJwk = attackerKey.export({ format: 'jwk' });
  const valid = sign(claims());
  const [validHeader, validPayload, validSignature] = valid.split('.');

  const refused: [string, () => string][] = [
    ['an id token', () => mintToken(issuer, { tokenUse: 'id' })],
    ['another app client', () => mintToken(issuer, { clientId: 'someotherclient123456789ab' })],
    ['an expired token', () => mintToken(issuer, { expiresIn: -60 })],
    ['a token without exp', () => sign({ ...claims(), exp: undefined })],
    ['exp as a string', () => sign(claims({ exp: String(Math.floor(Date.now() / 1000) + 600) }))],
    ['nbf in the future', () => sign(claims({ nbf: Math.floor(Date.now() / 1000) + 600 }))],
    ['cognito:groups as a string', () => sign(claims({ 'cognito:groups': 'admin' }))],
    ['cognito:groups with a non-string', () => sign(claims({ 'cognito:groups': ['admin', 1] }))],
    ['no token_use', () => sign({ ...claims(), token_use: undefined })],
    [
      'another issuer (region)',
      () => sign(claims({ iss: issuer.meta.issuer.replace('us-east-1', 'eu-west-1') })),
    ],
    ['another issuer (pool)', () => sign(claims({ iss: `${issuer.meta.issuer}x` }))],
    ['an issuer with a trailing slash', () => sign(claims({ iss: `${issuer.meta.issuer}/` }))],
    ['alg none without a signature', () => `${b64({ ...header, alg: 'none' })}.${validPayload}.`],
    [
      'alg none with a signature',
      () => `${b64({ ...header, alg: 'none' })}.${validPayload}.${validSignature}`,
    ],
    [
      'HS256 signed with the public key',
      () => {
        const input = `${b64({ ...header, alg: 'HS256' })}.${validPayload}`;
        const secret = JSON.stringify(issuer.jwks.keys[0]);
        return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
      },
    ],
    ['RS384 with the RS256 key', () => sign(claims(), { ...header, alg: 'RS384' })],
    ['an unknown kid', () => sign(claims(), { ...header, kid: 'unknown' })],
    ['a kid with path traversal', () => sign(claims(), { ...header, kid: '../../etc/passwd' })],
    ['no kid', () => sign(claims(), { alg: 'RS256' })],
    ['an attacker key reusing the kid', () => signJwt(header, claims(), attackerJwk)],
    [
      'a tampered payload',
      () => `${validHeader}.${b64(claims({ 'cognito:groups': ['admin'] }))}.${validSignature}`,
    ],
    ['garbage', () => 'not-a-jwt'],
    ['two parts', () => `${validHeader}.${validPayload}`],
    ['five parts (JWE)', () => `${validHeader}.a.b.c.d`],
    [
      'a header that is not JSON',
      () => `${Buffer.from('nope').toString('base64url')}.${validPayload}.${validSignature}`,
    ],
  ];

  it.each(refused)('refuses %s', async (_, make) => {
    await expect(verifier.verify(make())).rejects.toThrow();
  });

  it.each([
    ['a token without exp', () => sign({ ...claims(), exp: undefined }), 'exp is required'],
    [
      'cognito:groups as a string',
      () => sign(claims({ 'cognito:groups': 'admin' })),
      'cognito:groups must be an array of strings',
    ],
    [
      'cognito:groups with a non-string',
      () => sign(claims({ 'cognito:groups': ['admin', 1] })),
      'cognito:groups must be an array of strings',
    ],
    ['a token without sub', () => sign({ ...claims(), sub: undefined }), 'sub is required'],
  ])('refuses %s with the contract’s own claim check, run by aws-jwt-verify', async (_, make, message) => {
    await expect(verifier.verify(make())).rejects.toStrictEqual(new TokenClaimError(message));
  });

  it('keeps a username only when it is a string', async () => {
    await expect(verifier.verify(sign(claims({ username: 42 })))).resolves.toStrictEqual({
      sub: 'user-1',
      username: undefined,
      groups: ['editor'],
    });
  });

  it('never fetches a JWKS when the JWKS was given', async () => {
    const realFetch = globalThis.fetch;
    let fetched = 0;
    globalThis.fetch = async (...args) => {
      fetched++;
      return realFetch(...args);
    };
    try {
      for (let i = 0; i < 5; i++)
        await verifier.verify(sign(claims(), { ...header, kid: `unknown-${i}` })).catch(() => {});
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(fetched).toBe(0);
  });
});
