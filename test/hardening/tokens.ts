import { createHmac, createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { cognitoClaims, type Issuer, mintToken, signJwt } from '../../scripts/local/issuer.ts';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** One hostile `Authorization` header value, named for the test that sends it. */
export interface Attack {
  name: string;
  authorization: string;
}

/**
 * Every token attack of issue #6 whose token must fail verification (401 with `error="invalid_token"`).
 * Each token carries the `admin` group, so any that slipped through would be allowed to do everything.
 */
export function invalidTokenAttacks(issuer: Issuer): Attack[] {
  const header = { kid: issuer.privateJwk.kid, alg: 'RS256' };
  const claims = (overrides: Record<string, unknown> = {}) => ({
    ...cognitoClaims(issuer, { groups: ['admin'] }),
    ...overrides,
  });
  const without = (key: string) => {
    const { [key]: _, ...rest } = claims();
    return rest;
  };
  const sign = (payload: Record<string, unknown>, h: Record<string, unknown> = header) =>
    signJwt(h, payload, issuer.privateJwk);
  const valid = sign(claims());
  const [validHeader = '', validPayload = '', validSignature = ''] = valid.split('.');
  const { privateKey: attackerKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const attackerJwk = attackerKey.export({ format: 'jwk' });
  const publicJwk = issuer.jwks.keys[0];
  if (!publicJwk) throw new Error('the issuer has no public key');
  const publicPem = createPublicKey({ key: { ...publicJwk }, format: 'jwk' })
    .export({ format: 'pem', type: 'spki' })
    .toString();
  const hs256 = (secret: string) => {
    const input = `${b64({ ...header, alg: 'HS256' })}.${validPayload}`;
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  };
  const iss = issuer.meta.issuer;
  const bearer: [string, string][] = [
    ['garbage', 'not-a-jwt'],
    ['a token of two parts', `${validHeader}.${validPayload}`],
    ['a token of five parts (JWE-like)', `${validHeader}.${validPayload}.a.b.${validSignature}`],
    [
      'a header that is not JSON',
      `${Buffer.from('{nope').toString('base64url')}.${validPayload}.${validSignature}`,
    ],
    [
      'a payload that is not JSON',
      `${validHeader}.${Buffer.from('nope').toString('base64url')}.${validSignature}`,
    ],
    ['alg none without a signature', `${b64({ ...header, alg: 'none' })}.${validPayload}.`],
    ['alg none with a signature', `${b64({ ...header, alg: 'none' })}.${validPayload}.${validSignature}`],
    ['alg NONE without a signature', `${b64({ ...header, alg: 'NONE' })}.${validPayload}.`],
    ['HS256 signed with the public JWK as secret', hs256(JSON.stringify(publicJwk))],
    ['HS256 signed with the public key PEM as secret', hs256(publicPem)],
    ['RS384 with the RS256 key', sign(claims(), { ...header, alg: 'RS384' })],
    ['an unknown kid', sign(claims(), { ...header, kid: randomUUID() })],
    ['a kid with path traversal', sign(claims(), { ...header, kid: '../../../../etc/passwd' })],
    ['a kid that is a URL', sign(claims(), { ...header, kid: 'https://attacker.example/jwks.json' })],
    ['no kid', sign(claims(), { alg: 'RS256' })],
    [
      'a jku header pointing elsewhere',
      sign(claims(), { ...header, kid: 'x', jku: 'https://attacker.example' }),
    ],
    ['an attacker key reusing the real kid', signJwt(header, claims(), attackerJwk)],
    [
      'an embedded attacker jwk',
      signJwt(
        { ...header, jwk: { ...createPublicKey(attackerKey).export({ format: 'jwk' }) } },
        claims(),
        attackerJwk,
      ),
    ],
    [
      'a tampered payload with the original signature',
      `${validHeader}.${b64(claims({ sub: 'someone-else' }))}.${validSignature}`,
    ],
    ['a signature of another token', `${validHeader}.${validPayload}.${sign(claims()).split('.')[2]}`],
    ['an expired token', mintToken(issuer, { groups: ['admin'], expiresIn: -60 })],
    ['nbf in the future', sign(claims({ nbf: now() + 600 }))],
    ['no exp', sign(without('exp'))],
    ['exp as a string', sign(claims({ exp: String(now() + 600) }))],
    ['an issuer in another region', sign(claims({ iss: iss.replace(issuer.meta.region, 'eu-west-1') }))],
    [
      'an issuer of another pool',
      sign(claims({ iss: iss.replace(issuer.meta.userPoolId, `${issuer.meta.region}_0therP00l`) })),
    ],
    ['an issuer with a trailing slash', sign(claims({ iss: `${iss}/` }))],
    ['an issuer over http', sign(claims({ iss: iss.replace('https:', 'http:') }))],
    ['another app client', mintToken(issuer, { groups: ['admin'], clientId: 'someotherclient123456789ab' })],
    ['client_id as an array', sign(claims({ client_id: [issuer.meta.clientId] }))],
    ['an id token', mintToken(issuer, { groups: ['admin'], tokenUse: 'id' })],
    ['no token_use', sign(without('token_use'))],
    ['token_use id on an access-shaped token', sign(claims({ token_use: 'id' }))],
    ['cognito:groups as a string', sign(claims({ 'cognito:groups': 'admin' }))],
    ['cognito:groups with a non-string', sign(claims({ 'cognito:groups': ['admin', 7] }))],
    ['no sub', sign(without('sub'))],
    ['a token over 8 KB', `${valid}${'A'.repeat(8 * 1024)}`],
  ];
  return [
    ...bearer.map(([name, token]) => ({ name, authorization: `Bearer ${token}` })),
    { name: 'an empty Bearer', authorization: 'Bearer' },
    { name: 'Bearer with spaces only', authorization: 'Bearer    ' },
    { name: 'the Basic scheme', authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` },
    { name: 'a valid token without a scheme', authorization: valid },
    { name: 'the token scheme', authorization: `Token ${valid}` },
    { name: 'a valid token with a trailing junk word', authorization: `Bearer ${valid} admin` },
    { name: 'a header over 8 KB', authorization: `Bearer ${'a'.repeat(9000)}` },
  ];
}

/** A token padded (with an extra claim) so that `Bearer <token>` is exactly `length` characters. */
export function tokenOfHeaderLength(issuer: Issuer, groups: string[], length: number): string {
  const claims = cognitoClaims(issuer, { groups });
  const b64Length = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url').length;
  // An RS256 signature with a 2048-bit key is 256 bytes: 342 base64url characters.
  const fixed = 'Bearer '.length + 2 + 342;
  for (let typ = 0; typ < 3; typ++) {
    const header = { kid: issuer.privateJwk.kid, alg: 'RS256', ...(typ ? { typ: 'J'.repeat(typ) } : {}) };
    for (let pad = 0; pad < length; pad++) {
      const payload = { ...claims, pad: 'p'.repeat(pad) };
      const total = fixed + b64Length(header) + b64Length(payload);
      if (total > length) break;
      if (total === length) {
        const token = signJwt(header, payload, issuer.privateJwk);
        if (`Bearer ${token}`.length !== length) throw new Error('token length miscounted');
        return token;
      }
    }
  }
  throw new Error(`no token makes an Authorization header of exactly ${length} characters`);
}
