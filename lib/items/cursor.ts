import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidCursorError } from './errors.ts';

const VERSION = 'c1';

/** Signs and checks list cursors, so the service can tell a cursor it issued from any other string. */
export interface CursorCodec {
  encode(lastId: number): string;
  decode(cursor: string): number;
}

/** Cursor = `c1.<last id in base 36>.<HMAC-SHA256 truncated to 128 bits, base64url>`. */
export function createCursorCodec(key: string): CursorCodec {
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, 16);
  return {
    encode(lastId) {
      const payload = `${VERSION}.${lastId.toString(36)}`;
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    decode(cursor) {
      const match = /^(c1\.([0-9a-z]{1,11}))\.([A-Za-z0-9_-]{22})$/.exec(cursor);
      if (!match?.[1] || !match[2] || !match[3]) throw new InvalidCursorError();
      const given = Buffer.from(match[3], 'base64url');
      // The last base64url character carries 4 unused bits: accept only the spelling the service issues.
      if (given.toString('base64url') !== match[3]) throw new InvalidCursorError();
      if (given.length !== 16 || !timingSafeEqual(given, mac(match[1]))) throw new InvalidCursorError();
      const lastId = Number.parseInt(match[2], 36);
      if (!Number.isSafeInteger(lastId) || lastId < 1) throw new InvalidCursorError();
      return lastId;
    },
  };
}
