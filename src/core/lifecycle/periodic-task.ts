import type { OnApplicationShutdown } from '@nestjs/common';

/**
 * A provider's background work, run every interval once started; a run still going when the next
 * is due makes that one skip. At shutdown no run starts any more, and the one in progress is waited for.
 */
export abstract class PeriodicTask implements OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  protected stopped = false;

  /** One run: it logs its own failures, and the next run tries again. */
  protected abstract run(): Promise<void>;

  /** Runs first after `firstDelayMs`, then every `intervalMs`; the timers keep no process alive. */
  protected startRuns(intervalMs: number, firstDelayMs = intervalMs): void {
    const tick = () => {
      this.running ??= this.run().finally(() => {
        this.running = undefined;
      });
    };
    this.timer = setTimeout(() => {
      tick();
      this.timer = setInterval(tick, intervalMs).unref();
    }, firstDelayMs).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
