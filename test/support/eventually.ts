import { setTimeout as sleep } from 'node:timers/promises';

/** Waits until `condition` holds (polling), or fails after `timeoutMs`. For what happens asynchronously, such as a log line. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms: ${condition.toString()}`);
    }
    await sleep(25);
  }
}
