import { describe, expect, it } from 'vitest';
import { positiveIntegerPattern } from '../../lib/validation.ts';

describe('positiveIntegerPattern', () => {
  it.each([1, 5, 9, 10, 19, 20, 99, 100, 101, 109, 190, 200, 1000, 1009, 4321])(
    'matches exactly the decimals 1 to %i, without leading zeros',
    (max) => {
      const pattern = new RegExp(`^${positiveIntegerPattern(String(max))}$`);
      const wrong = Array.from({ length: 12_000 }, (_, n) => String(n)).filter(
        (n) => pattern.test(n) !== (Number(n) >= 1 && Number(n) <= max),
      );
      expect(wrong).toStrictEqual([]);
      expect(
        ['01', `0${max}`, '+1', ' 1', '1 ', '1.0', '1e1', ''].filter((n) => pattern.test(n)),
      ).toStrictEqual([]);
    },
  );
});
