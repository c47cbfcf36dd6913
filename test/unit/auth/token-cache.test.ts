import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createVerifiedTokenCache } from '../../../lib/auth/token-cache.ts';
import { createTokenVerifier } from '../../../lib/auth/verifier.ts';
import { cognitoClaims, createIssuer, mintToken, signJwt } from '../../../scripts/local/issuer.ts';

const issuer = createIssuer();
const header = { kid: issuer.privateJwk.kid, alg: 'RS256' };
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const verifierWith = (cache = createVerifiedTokenCache(10)) => ({
  cache,
  verifier: createTokenVerifier({
    userPoolId: issuer.meta.userPoolId,
    clientId: issuer.meta.clientId,
    jwks: issuer.jwks,
    cache,
  }),
});

afterEach(() => vi.useRealTimers());

describe('verified-token cache', () => {
  it('answers a repeat of a verified token from the cache', async () => {
    const { cache, verifier } = verifierWith();
    const token = mintToken(issuer, { groups: ['editor'], sub: 'user-1' });
    const first = await verifier.verify(token);
    expect(cache.size).toBe(1);
    // An entry put there directly is what comes back: the repeat is not verified again.
    cache.set(token, { sub: 'from-cache', username: undefined, groups: [] }, Number.MAX_SAFE_INTEGER);
    await expect(verifier.verify(token)).resolves.toStrictEqual({
      sub: 'from-cache',
      username: undefined,
      groups: [],
    });
    expect(first).toStrictEqual({ sub: 'user-1', username: 'user-1', groups: ['editor'] });
  });

  it('re-checks expiry on every hit: a cached token is refused once its exp has passed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Date.now();
    const { cache, verifier } = verifierWith();
    const token = mintToken(issuer, { groups: ['editor'], expiresIn: 60, now: Math.floor(now / 1000) });
    await expect(verifier.verify(token)).resolves.toMatchObject({ groups: ['editor'] });
    vi.setSystemTime(now + 30_000);
    await expect(verifier.verify(token)).resolves.toMatchObject({ groups: ['editor'] });
    vi.setSystemTime(now + 61_000);
    await expect(verifier.verify(token)).rejects.toThrow(/expired/i);
    expect(cache.size).toBe(0);
    expect(cache.get(token, now / 1000)).toBeUndefined();
  });

  it('verifies in full a different token with the same claims (same kid, another key)', async () => {
    const { cache, verifier } = verifierWith();
    const claims = cognitoClaims(issuer, { groups: ['editor'], sub: 'user-1' });
    await verifier.verify(signJwt(header, claims, issuer.privateJwk));
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = signJwt(header, claims, privateKey.export({ format: 'jwk' }));
    await expect(verifier.verify(forged)).rejects.toThrow();
    expect(cache.size).toBe(1);
  });

  it('never serves a tampered token from the cache, and never stores a refused one', async () => {
    const { cache, verifier } = verifierWith();
    const token = mintToken(issuer, { groups: ['reader'], sub: 'user-1' });
    await verifier.verify(token);
    const [h, , signature] = token.split('.');
    const payload = cognitoClaims(issuer, { groups: ['admin'], sub: 'user-1' });
    const tampered = `${h}.${b64(payload)}.${signature}`;
    for (let i = 0; i < 3; i++) await expect(verifier.verify(tampered)).rejects.toThrow();
    await expect(verifier.verify(`${token}x`)).rejects.toThrow();
    expect(cache.size).toBe(1);
    expect(cache.get(tampered, Date.now() / 1000)).toBeUndefined();
  });

  it('holds at most maxEntries tokens, dropping the least recently used', async () => {
    const { cache, verifier } = verifierWith(createVerifiedTokenCache(2));
    const [a, b, c] = ['a', 'b', 'c'].map((sub) => mintToken(issuer, { sub }));
    if (!a || !b || !c) throw new Error('no tokens');
    await verifier.verify(a);
    await verifier.verify(b);
    await verifier.verify(a); // a is now the most recently used
    await verifier.verify(c);
    const now = Date.now() / 1000;
    expect(cache.size).toBe(2);
    expect([a, b, c].map((token) => cache.get(token, now)?.sub)).toStrictEqual(['a', undefined, 'c']);
  });

  it('returns callers that cannot be changed through the cache', async () => {
    const { verifier } = verifierWith();
    const token = mintToken(issuer, { groups: ['reader'] });
    await verifier.verify(token);
    const cached = await verifier.verify(token);
    expect(Object.isFrozen(cached) && Object.isFrozen(cached.groups)).toBe(true);
  });
});
