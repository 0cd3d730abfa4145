const tasks: Array<() => Promise<void>> = [];

/** Work for after the application has closed, before a signal's exit: the closing may still record spans. */
export function beforeExit(task: () => Promise<void>): void {
  tasks.push(task);
}

/** Runs every task, together; one failing does not stop the others. */
export async function runBeforeExit(): Promise<void> {
  await Promise.allSettled(tasks.map((task) => task()));
}
