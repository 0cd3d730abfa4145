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
