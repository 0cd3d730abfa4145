const tasks: Array<() => Promise<void>> = [];

/**
 * Work that must be done once the application has closed, just before the
 * process exits on a signal: exporting the last spans, which the closing
 * application may still have recorded.
 */
export function beforeExit(task: () => Promise<void>): void {
  tasks.push(task);
}

/** Runs every task, together; one failing does not stop the others. */
export async function runBeforeExit(): Promise<void> {
  await Promise.allSettled(tasks.map((task) => task()));
}
