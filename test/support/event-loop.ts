/** Keeps the event loop busy for `ms`, as a process that cannot keep up is: nothing else runs meanwhile. */
export function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy: timers, connections and requests wait.
  }
}
