/**
 * Runs `task` on every value with at most `limit` running at once, and returns the results in order. When a task
 * fails, no new task starts, and the first error is thrown only once every running task has ended: nothing the
 * caller started is still in flight when it sees the error.
 */
export async function mapLimit<T, R>(
  values: readonly T[],
  limit: number,
  task: (value: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(values.length);
  // The workers' shared cursor and first failure.
  const run: { next: number; failure?: { error: unknown } } = { next: 0 };
  const worker = async () => {
    while (!run.failure && run.next < values.length) {
      const index = run.next++;
      try {
        results[index] = await task(values[index] as T, index);
      } catch (error) {
        run.failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, values.length)) }, worker));
  if (run.failure) throw run.failure.error;
  return results;
}
