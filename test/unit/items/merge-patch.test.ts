import { describe, expect, it } from 'vitest';
import { applyMergePatch, sameFields } from '../../../lib/items/merge-patch.ts';

const current = {
  name: 'Boot',
  description: 'Dry feet',
  tags: ['outdoor'],
  attributes: { brand: 'acme', size: 42 },
};

describe('applyMergePatch', () => {
  it('replaces present keys and keeps absent ones', () => {
    expect(applyMergePatch(current, { name: 'Trail Boot', tags: ['hiking'] })).toStrictEqual({
      name: 'Trail Boot',
      description: 'Dry feet',
      tags: ['hiking'],
      attributes: { brand: 'acme', size: 42 },
    });
  });

  it('returns fields set to null to their defaults', () => {
    expect(applyMergePatch(current, { description: null, tags: null, attributes: null })).toStrictEqual({
      name: 'Boot',
      description: '',
      tags: [],
      attributes: {},
    });
  });

  it('merges attributes key by key, null removing a key', () => {
    expect(
      applyMergePatch(current, { attributes: { brand: null, colour: 'red', size: 43 } }).attributes,
    ).toStrictEqual({
      size: 43,
      colour: 'red',
    });
  });

  it('does not modify its input', () => {
    applyMergePatch(current, { attributes: { brand: null } });
    expect(current.attributes).toStrictEqual({ brand: 'acme', size: 42 });
  });
});

describe('sameFields', () => {
  it('ignores attribute order but not tag order', () => {
    expect(sameFields(current, { ...current, attributes: { size: 42, brand: 'acme' } })).toBe(true);
    expect(sameFields(current, { ...current, tags: ['outdoor', 'x'] })).toBe(false);
    expect(sameFields({ ...current, tags: ['a', 'b'] }, { ...current, tags: ['b', 'a'] })).toBe(false);
    expect(sameFields(current, { ...current, attributes: { brand: 'acme', size: '42' } })).toBe(false);
    expect(sameFields(current, { ...current, attributes: { brand: 'acme' } })).toBe(false);
  });
});
