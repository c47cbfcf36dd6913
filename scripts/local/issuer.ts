import {
  createPrivateKey,
  generateKeyPairSync,
  type JsonWebKey,
  randomBytes,
  randomUUID,
  sign,
} from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The local stand-in for a Cognito user pool: its signing key, JWKS and ids (contract §7). */
export interface Issuer {
  privateJwk: JsonWebKey & { kid: string; alg: 'RS256' };
  jwks: { keys: { kty: 'RSA'; n: string; e: string; kid: string; alg: 'RS256'; use: 'sig' }[] };
  meta: { region: string; userPoolId: string; clientId: string; issuer: string };
}

const REGION = 'us-east-1';
const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';
const randomId = (length: number, alphabet = ALPHANUMERIC) =>
  Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join('');

/** Generates a new issuer: an RSA-2048 key and Cognito-shaped pool and client ids. */
export function createIssuer(): Issuer {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const userPoolId = `${REGION}_${randomId(9, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}`;
  const { n, e } = publicKey.export({ format: 'jwk' });
  if (!n || !e) throw new Error('RSA public key export lacks n or e');
  return {
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256' },
    jwks: { keys: [{ kty: 'RSA', n, e, kid, alg: 'RS256', use: 'sig' }] },
    meta: {
      region: REGION,
      userPoolId,
      clientId: randomId(26),
      issuer: `https://cognito-idp.${REGION}.amazonaws.com/${userPoolId}`,
    },
  };
}

/** Reads the issuer from `dir` (`.local/issuer`), creating and writing it on first use. */
export async function loadOrCreateIssuer(dir: string): Promise<Issuer> {
  try {
    const [privateJwk, jwks, meta] = await Promise.all(
      ['private.jwk.json', 'jwks.json', 'issuer.json'].map(async (file) =>
        JSON.parse(await readFile(join(dir, file), 'utf8')),
      ),
    );
    return { privateJwk, jwks, meta };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const issuer = createIssuer();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, 'private.jwk.json'), `${JSON.stringify(issuer.privateJwk, null, 2)}\n`, {
    mode: 0o600,
  });
  await writeFile(join(dir, 'jwks.json'), `${JSON.stringify(issuer.jwks, null, 2)}\n`);
  await writeFile(join(dir, 'issuer.json'), `${JSON.stringify(issuer.meta, null, 2)}\n`);
  return issuer;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs any header and payload with an RSA private JWK (RS256). Tests use it to build hostile tokens too. */
export function signJwt(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: JsonWebKey,
): string {
  const input = `${base64url(header)}.${base64url(payload)}`;
  const signature = sign('sha256', Buffer.from(input), createPrivateKey({ key, format: 'jwk' }));
  return `${input}.${signature.toString('base64url')}`;
}

export interface TokenOptions {
  groups?: readonly string[];
  sub?: string;
  expiresIn?: number;
  tokenUse?: 'access' | 'id';
  clientId?: string;
  now?: number;
}

/** The claims of a Cognito user pool token for this issuer, exactly as Cognito shapes them. */
export function cognitoClaims(issuer: Issuer, options: TokenOptions = {}): Record<string, unknown> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const sub = options.sub ?? randomUUID();
  const groups = options.groups ?? [];
  const clientId = options.clientId ?? issuer.meta.clientId;
  const common = {
    sub,
    ...(groups.length > 0 ? { 'cognito:groups': [...groups] } : {}),
    iss: issuer.meta.issuer,
    origin_jti: randomUUID(),
    event_id: randomUUID(),
    token_use: options.tokenUse ?? 'access',
    auth_time: now,
    exp: now + (options.expiresIn ?? 3600),
    iat: now,
    jti: randomUUID(),
  };
  if (options.tokenUse === 'id') {
    return {
      ...common,
      aud: clientId,
      'cognito:username': sub,
      email: `${sub}@example.com`,
      email_verified: true,
    };
  }
  return {
    ...common,
    version: 2,
    client_id: clientId,
    scope: 'aws.cognito.signin.user.admin',
    username: sub,
  };
}

/** Mints a token signed by the issuer's key, with the header Cognito uses (`kid`, `alg`). */
export function mintToken(issuer: Issuer, options: TokenOptions = {}): string {
  return signJwt(
    { kid: issuer.privateJwk.kid, alg: 'RS256' },
    cognitoClaims(issuer, options),
    issuer.privateJwk,
  );
}
