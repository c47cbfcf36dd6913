// The service's one retry loop: attempts spaced by exponential back-off with full jitter (AWS Architecture Blog,
// "Exponential Backoff And Jitter"), so writers that lost a race to each other spread out instead of colliding again.

/** The wait before attempt n + 1 is random, up to `min(maxMs, baseMs × 2^(n − 1))`. */
export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/** What to do after an attempt threw: give up (`false`), retry after the back-off (`true`), or retry at once. */
export type RetryVerdict = boolean | 'at once';

export interface RetryPolicy<T> {
  /** Attempts in all, the first included (`Infinity` with `budgetMs`). */
  attempts: number;
  backoff: Backoff;
  /** Whether a thrown error is worth another attempt; by default none is, and it is thrown at once. */
  retryable?: (error: unknown) => RetryVerdict;
  /** Whether an attempt's value finishes the work; by default any value does. An unfinished one is retried. */
  until?: (value: T) => boolean;
  /** No attempt starts once this many milliseconds have passed since the first began. */
  budgetMs?: number;
  /** The error thrown when attempts or time run out; by default the last attempt's error, else a plain one. */
  exhausted?: () => unknown;
  /** The random source of the jitter, in [0, 1). */
  random?: () => number;
}

/** The jittered wait after failed attempt `attempt` (1-based). */
export function backoffDelay(attempt: number, { baseMs, maxMs }: Backoff, random = Math.random): number {
  return random() * Math.min(maxMs, baseMs * 2 ** (attempt - 1));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` (given its 1-based number) until it returns a finished value or throws an error that is not
 * retryable, waiting the jittered back-off between attempts; when attempts or the time budget run out, throws.
 */
export async function retry<T>(attempt: (n: number) => Promise<T>, policy: RetryPolicy<T>): Promise<T> {
  const { attempts, backoff, retryable = () => false, until = () => true, budgetMs = Infinity } = policy;
  const started = Date.now();
  for (let n = 1; ; n++) {
    let verdict: RetryVerdict = true;
    let failure: { error: unknown } | undefined;
    try {
      const value = await attempt(n);
      if (until(value)) return value;
    } catch (error) {
      verdict = retryable(error);
      if (!verdict) throw error;
      failure = { error };
    }
    if (n >= attempts || Date.now() - started > budgetMs) throw exhaustion(policy, failure, n);
    if (verdict !== 'at once') await sleep(backoffDelay(n, backoff, policy.random));
  }
}

/** What `retry` throws when attempts or time run out after `n` attempts, `failure` the last one's error if any. */
function exhaustion<T>(policy: RetryPolicy<T>, failure: { error: unknown } | undefined, n: number): unknown {
  if (policy.exhausted) return policy.exhausted();
  if (failure) return failure.error;
  return new Error(`Still unfinished after ${n} attempts`);
}
