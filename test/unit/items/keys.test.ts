import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createIdAllocator, nextLeaseSize } from '../../../lib/items/ids.ts';
import {
  blockOf,
  ID_BLOCK,
  ITEM_SHARDS,
  isItemKey,
  itemIdOf,
  itemKey,
  shardPk,
} from '../../../lib/items/keys.ts';

const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });

describe('item keys', () => {
  it('puts a block of ids on one shard and the next block on the next shard', () => {
    expect(itemKey(1)).toStrictEqual({ pk: 'ITEM#0', sk: '0000000000000001' });
    expect(itemKey(ID_BLOCK - 1).pk).toBe('ITEM#0');
    expect(itemKey(ID_BLOCK).pk).toBe('ITEM#1');
    expect(itemKey(ID_BLOCK * ITEM_SHARDS).pk).toBe('ITEM#0');
    expect(itemKey(ID_BLOCK * (ITEM_SHARDS + 1) + 5).pk).toBe('ITEM#1');
  });

  test.prop([id])('reads the id back from an item key', (n) => {
    expect(itemIdOf(itemKey(n))).toBe(n);
    expect(itemKey(n).pk).toBe(shardPk(blockOf(n) % ITEM_SHARDS));
  });

  it('refuses keys that are not an item', () => {
    const keys = [
      { pk: 'COUNTER', sk: 'ITEM' },
      { pk: 'ITEM', sk: '0000000000000001' },
      { pk: 'IDEM#abc', sk: '0000000000000001' },
      { pk: 'T#boot', sk: 'K#~' },
      { pk: 'ITEM#1', sk: '0000000000000001' },
      { pk: 'ITEM#01', sk: '0000000000000100' },
      { pk: 'ITEM', sk: '0000000000000000' },
      { pk: 'ITEM#0', sk: '1' },
      { pk: undefined, sk: '0000000000000001' },
    ];
    for (const key of keys) expect(isItemKey(key), JSON.stringify(key)).toBe(false);
  });
});

describe('id leases', () => {
  it('doubles a lease used up quickly and halves one that lasted, within 1 and the largest', () => {
    expect(nextLeaseSize(1, 10)).toBe(2);
    expect(nextLeaseSize(64, 10)).toBe(100);
    expect(nextLeaseSize(100, 10)).toBe(100);
    expect(nextLeaseSize(100, 5000)).toBe(50);
    expect(nextLeaseSize(1, 5000)).toBe(1);
  });

  test.prop([
    fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
    fc.integer({ min: 1, max: 100 }),
  ])(
    'gives unique ids under concurrent calls from many containers sharing one counter',
    async (perContainer, maxLease) => {
      let counter = 0;
      const lease = async (size: number) => {
        await new Promise((resolve) => setImmediate(resolve));
        counter += size;
        return counter;
      };
      const containers = perContainer.map(() => createIdAllocator(lease, { maxLease }));
      const ids = (
        await Promise.all(
          containers.map((next, i) =>
            Promise.all(Array.from({ length: perContainer[i] ?? 0 }, () => next())),
          ),
        )
      ).flat();
      expect(new Set(ids).size).toBe(ids.length);
      for (const n of ids) expect(n >= 1 && n <= counter).toBe(true);
    },
  );
});
