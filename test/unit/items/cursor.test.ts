import { describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../../lib/items/cursor.ts';
import { InvalidCursorError } from '../../../lib/items/errors.ts';

const codec = createCursorCodec('k'.repeat(32));

describe('cursor codec', () => {
  it('round-trips the last id', () => {
    for (const id of [1, 42, 1_000_000, Number.MAX_SAFE_INTEGER])
      expect(codec.decode(codec.encode(id))).toBe(id);
  });

  it('refuses a cursor signed with another key', () => {
    const foreign = createCursorCodec('o'.repeat(32)).encode(5);
    expect(() => codec.decode(foreign)).toThrow(InvalidCursorError);
  });

  it('refuses a cursor whose id was changed', () => {
    const [prefix, , mac] = codec.encode(5).split('.');
    expect(() => codec.decode(`${prefix}.6.${mac}`)).toThrow(InvalidCursorError);
  });

  it('accepts only the spelling it issued (the last MAC character has unused bits)', () => {
    const issued = codec.encode(5);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(issued.at(-1) ?? 'A');
    // Characters in the same group of four decode to the same bytes.
    const twin = alphabet[last ^ 1] ?? 'A';
    expect(Buffer.from(issued.slice(-22), 'base64url')).toStrictEqual(
      Buffer.from(`${issued.slice(-22, -1)}${twin}`, 'base64url'),
    );
    expect(() => codec.decode(`${issued.slice(0, -1)}${twin}`)).toThrow(InvalidCursorError);
  });

  it.each(['', 'abc', 'c1.5', 'c1.5.', 'c1.0.AAAAAAAAAAAAAAAAAAAAAA', '1'.repeat(200)])(
    'refuses %j',
    (cursor) => {
      expect(() => codec.decode(cursor)).toThrow(InvalidCursorError);
    },
  );
});
