import { jitter } from '../concurrency.ts';

/**
 * Runs `task` until it succeeds, retrying the errors `retryable` accepts up to `attempts` times in all, with
 * exponential back-off and full jitter (5 ms doubling, at most 200 ms a wait). Other errors are thrown at once.
 */
export async function withRetries<T>(
  task: () => Promise<T>,
  { retryable, attempts, what }: { retryable: (error: unknown) => boolean; attempts: number; what: string },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await task();
    } catch (error) {
      if (!retryable(error)) throw error;
      if (attempt >= attempts) throw new Error(`${what}: still losing races after ${attempts} attempts`);
      await jitter(Math.min(200, 5 * 2 ** attempt));
    }
  }
}
