/**
 * Runs the closers in turn, each one whether or not those before it failed,
 * then throws the first failure. A closer may find nothing to close
 * (`() => testApp?.close()` after a set-up that failed before `testApp` was
 * set): the servers that set-up did start are still stopped, and none is left
 * to keep Jest from exiting.
 */
export async function closeAll(...closers: ReadonlyArray<() => unknown>): Promise<void> {
  const failures: unknown[] = [];
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) {
    throw failures[0];
  }
}

/**
 * Waits for every start, begun together; when one fails, stops the ones that
 * started and throws the first failure. (`Promise.all` throws at the first
 * failure, and the ones that started are lost, still running.)
 */
export async function startAll<T>(
  starts: ReadonlyArray<Promise<T>>,
  stop: (started: T) => unknown,
): Promise<T[]> {
  const results = await Promise.allSettled(starts);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) {
    await closeAll(
      ...results.map((result) => () => (result.status === 'fulfilled' ? stop(result.value) : undefined)),
    );
    throw failed.reason;
  }
  return results.map((result) => (result as PromiseFulfilledResult<T>).value);
}
