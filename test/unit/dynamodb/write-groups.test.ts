import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GROUP_BYTES,
  itemBytes,
  packGroups,
  TRANSACTION_ACTIONS,
} from '../../../lib/dynamodb/write-groups.ts';

describe('itemBytes', () => {
  it("counts an item from above by DynamoDB's rules: names and values, 21 a number, 3 a map and 1 an element", () => {
    // pk 2 + 6, sk 2 + 3, v 1 + 21, p 1 + 4 bytes: 40 by the developer guide; the map and its elements add 3 + 4.
    expect(itemBytes({ pk: 'T#boot', sk: 'K#~', v: 3, p: new Uint8Array(4) })).toBe(47);
    // UTF-8 bytes, not characters.
    expect(itemBytes('größe')).toBe(7);
    expect(itemBytes({ f: { '=booting': { df: 2 } } })).toBe(3 + 1 + 1 + (3 + 1 + 8 + (3 + 1 + 2 + 21)));
    expect(itemBytes([true, null])).toBe(3 + 2 * (1 + 1));
  });
});

describe('packGroups', () => {
  /** A member: its actions (each an item of `bytes` bytes) and its place in the input. */
  const member = fc.record({
    actions: fc.integer({ min: 1, max: 40 }),
    bytes: fc.integer({ min: 1, max: 600_000 }),
  });
  const actionsOf = (m: { actions: number; bytes: number }) =>
    Array.from({ length: m.actions }, () => new Uint8Array(Math.ceil(m.bytes / m.actions)));
  const size = (group: { actions: number; bytes: number }[]) => ({
    actions: group.reduce((sum, m) => sum + m.actions, 0),
    bytes: group.reduce((sum, m) => sum + itemBytes(actionsOf(m)), 0),
  });

  it('keeps the members in order, each group within its members, actions and bytes, or a member alone', () => {
    fc.assert(
      fc.property(fc.array(member, { maxLength: 60 }), fc.integer({ min: 1, max: 100 }), (members, most) => {
        const groups = packGroups(members, most, actionsOf);
        expect(groups.flat()).toStrictEqual(members);
        for (const group of groups) {
          expect(group.length).toBeGreaterThan(0);
          if (group.length === 1) continue;
          expect(group.length).toBeLessThanOrEqual(most);
          expect(size(group).actions).toBeLessThanOrEqual(TRANSACTION_ACTIONS);
          expect(size(group).bytes).toBeLessThanOrEqual(GROUP_BYTES);
        }
        // Greedy: a group ends only where its next member would not fit in it.
        groups.slice(1).forEach((group, i) => {
          const grown = [...(groups[i] ?? []), group[0] as (typeof members)[number]];
          const fits =
            grown.length <= most &&
            size(grown).actions <= TRANSACTION_ACTIONS &&
            size(grown).bytes <= GROUP_BYTES;
          expect(fits).toBe(false);
        });
      }),
    );
  });

  it('puts 50 small writes a group, and a group of 100 actions at most', () => {
    const small = Array.from({ length: 120 }, () => ({ actions: 1, bytes: 300 }));
    expect(packGroups(small, 50, actionsOf).map((group) => group.length)).toStrictEqual([50, 50, 20]);
    const sealing = Array.from({ length: 10 }, () => ({ actions: 30, bytes: 3_000 }));
    expect(packGroups(sealing, 50, actionsOf).map((group) => group.length)).toStrictEqual([3, 3, 3, 1]);
  });
});
