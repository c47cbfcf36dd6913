import { brotliCompressSync } from 'node:zlib';
import { fc, test } from '@fast-check/vitest';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  packTerms,
  StoredChange,
  StoredTerms,
  termsChange,
  withChange,
} from '../../../../lib/search/format/terms.ts';

const read = (stored: unknown) => v.parse(StoredTerms, stored);
/** Any text packed as a term map is (brotli), well formed or not. */
const packed = (text: string) => brotliCompressSync(text);

describe('stored term maps', () => {
  test.prop([fc.dictionary(fc.string({ minLength: 1 }), fc.integer({ min: 1, max: 1_000_000 }))])(
    'reads back every packed map as it was, keys like __proto__ and constructor included',
    (terms) => {
      const withOddKeys = { ...terms, constructor: 2 };
      Object.defineProperty(withOddKeys, '__proto__', { value: 3, enumerable: true });
      expect(read(packTerms(withOddKeys))).toEqual(withOddKeys);
      expect(Object.keys(read(packTerms(withOddKeys))).sort()).toEqual(Object.keys(withOddKeys).sort());
    },
  );

  it('packs a long English map well under its JSON text', () => {
    const terms = Object.fromEntries(
      Array.from({ length: 90 }, (_, i) => [
        `aerodynamic${String.fromCharCode(97 + (i % 26))}${i}`,
        1 + (i % 3),
      ]),
    );
    const packed = packTerms(terms);
    expect(packed).toBeInstanceOf(Uint8Array);
    expect(packed.length).toBeLessThan(JSON.stringify(terms).length / 2);
  });

  it('refuses what is no term map, as a data issue, not a crash', () => {
    const texts = ['[1]', '{"wing":0}', '{"wing":1.5}', 'not json'];
    for (const bad of [new Uint8Array([1, 2, 3]), ...texts.map(packed), '{"wing":1}', 7]) {
      expect(v.safeParse(StoredTerms, bad).success).toBe(false);
    }
    expect(v.safeParse(StoredTerms, packTerms({ wing: 1 }).subarray(0, 3)).success).toBe(false);
  });
});

describe('a term map stored as its change from another', () => {
  const termMap = fc.dictionary(
    fc.constantFrom('wing', 'flow', '=flows', 'constructor', '__proto__', 'toString', 'a', 'b'),
    fc.integer({ min: 1, max: 9 }),
  );
  test.prop([termMap, termMap])(
    'gives back the target from the base and the packed change, terms added, changed and removed',
    (base, target) => {
      const change = v.parse(StoredChange, packTerms(termsChange(base, target)));
      const back = withChange(base, change);
      const entries = (map: object) => Object.entries(map).sort(([a], [b]) => (a < b ? -1 : 1));
      expect(entries(back)).toStrictEqual(entries(target));
      expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    },
  );

  it('holds only what differs: a few words added to a long map take a few bytes', () => {
    const base = Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`term${i}`, 1 + (i % 3)]));
    const target: Record<string, number> = { ...base, revis: 1, apparatu: 1, term3: 5 };
    delete target.term7;
    expect(termsChange(base, target)).toStrictEqual({ revis: 1, apparatu: 1, term3: 5, term7: 0 });
    expect(packTerms(termsChange(base, target)).length).toBeLessThan(packTerms(target).length / 2);
  });

  it('refuses a change with a count below 0 or not whole', () => {
    for (const bad of ['{"wing":-1}', '{"wing":0.5}', '[0]'])
      expect(v.safeParse(StoredChange, packed(bad)).success).toBe(false);
    expect(v.parse(StoredChange, packed('{"wing":0}'))).toStrictEqual({ wing: 0 });
  });
});
