import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { backoffDelay, retry } from '../../lib/retry.ts';

const quick = { baseMs: 1, maxMs: 2 };
class Lost extends Error {}

describe('retry', () => {
  it('returns the first finished value, after retrying retryable errors', async () => {
    const seen: number[] = [];
    const value = await retry(
      async (n) => {
        seen.push(n);
        if (n < 3) throw new Lost();
        return 'done';
      },
      { attempts: 5, backoff: quick, retryable: (error) => error instanceof Lost },
    );
    expect({ value, seen }).toStrictEqual({ value: 'done', seen: [1, 2, 3] });
  });

  it('throws an error that is not retryable at once', async () => {
    let calls = 0;
    const failure = new TypeError('bug');
    await expect(
      retry(
        async () => {
          calls++;
          throw failure;
        },
        { attempts: 5, backoff: quick, retryable: (error) => error instanceof Lost },
      ),
    ).rejects.toBe(failure);
    expect(calls).toBe(1);
  });

  it('throws the last error once the attempts run out, or the one `exhausted` gives', async () => {
    const last = new Lost('fifth');
    let n = 0;
    const attempt = async () => {
      n++;
      throw n === 5 ? last : new Lost();
    };
    await expect(retry(attempt, { attempts: 5, backoff: quick, retryable: () => true })).rejects.toBe(last);
    await expect(
      retry(attempt, {
        attempts: 2,
        backoff: quick,
        retryable: () => true,
        exhausted: () => new Error('gave up'),
      }),
    ).rejects.toThrow('gave up');
  });

  it('goes again while the value is unfinished, and gives up when the time budget is spent', async () => {
    let left = 3;
    expect(await retry(async () => --left, { attempts: 10, backoff: quick, until: (n) => n === 0 })).toBe(0);
    const started = Date.now();
    await expect(
      retry(async () => 1, {
        attempts: Infinity,
        budgetMs: 30,
        backoff: { baseMs: 5, maxMs: 5 },
        until: () => false,
        exhausted: () => new Error('still changing'),
      }),
    ).rejects.toThrow('still changing');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('retries "at once" without waiting the back-off', async () => {
    let n = 0;
    const started = Date.now();
    await retry(
      async () => {
        if (++n < 4) throw new Lost();
      },
      { attempts: 4, backoff: { baseMs: 10_000, maxMs: 10_000 }, retryable: () => 'at once' },
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test.prop([
    fc.integer({ min: 1, max: 60 }),
    fc.integer({ min: 1, max: 1_000 }),
    fc.integer({ min: 1, max: 10_000 }),
    fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  ])(
    'waits a jittered time within [0, min(max, base × 2^(n−1))) after attempt n',
    (attempt, baseMs, maxMs, random) => {
      const delay = backoffDelay(attempt, { baseMs, maxMs }, () => random);
      const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(ceiling);
      expect(delay).toBeCloseTo(random * ceiling, 6);
    },
  );

  test.prop([fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 })])(
    'makes at most `attempts` attempts, and succeeds when one within them does',
    async (attempts, succeedAt) => {
      let calls = 0;
      const outcome = retry(
        async (n) => {
          calls++;
          if (n < succeedAt) throw new Lost();
          return n;
        },
        { attempts, backoff: { baseMs: 0, maxMs: 0 }, retryable: () => true },
      );
      if (succeedAt <= attempts) await expect(outcome).resolves.toBe(succeedAt);
      else await expect(outcome).rejects.toBeInstanceOf(Lost);
      expect(calls).toBe(Math.min(attempts, succeedAt));
    },
  );
});
