import type { DestinationStream } from 'pino';

/** What of pino's asynchronous destination (sonic-boom) the batching uses. */
export interface FlushableDestination {
  write(text: string): unknown;
  flush(callback: (error?: Error) => void): void;
  flushSync(): void;
}

export interface BatchedDestinationOptions {
  /** Held text that is handed over at once, whatever its age (in UTF-16 code units, about bytes). */
  readonly maxLength: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_BATCHING: BatchedDestinationOptions = { maxLength: 4 * 1024, maxDelayMs: 100 };

/**
 * Hands `target` the log lines in blocks, at `maxLength` or `maxDelayMs` after the first, because each
 * sonic-boom write goes through libuv's thread pool and wakes the event loop when done
 * (docs/performance.md#the-log-line). `flush`, `flushSync` and the process's exit hand over what is
 * held first, before sonic-boom's own last flush; pino calls `flushSync` after every `fatal` line.
 */
export class BatchedDestination implements DestinationStream {
  private lines: string[] = [];
  private length = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly target: FlushableDestination,
    private readonly options: BatchedDestinationOptions = DEFAULT_BATCHING,
  ) {
    // One timer, re-armed by each block's first line, never cleared (`refresh` cannot re-arm a
    // cleared timer): when a block went for its size, it fires on nothing. It never keeps the process alive.
    this.timer = setTimeout(this.handOver, options.maxDelayMs).unref();
    process.prependListener('exit', this.handOver);
  }

  write(line: string): void {
    this.length += line.length;
    if (this.lines.push(line) === 1) {
      this.timer.refresh();
    }
    if (this.length >= this.options.maxLength) {
      this.handOver();
    }
  }

  flush(callback: (error?: Error) => void): void {
    this.handOver();
    this.target.flush(callback);
  }

  flushSync(): void {
    this.handOver();
    this.target.flushSync();
  }

  private readonly handOver = (): void => {
    if (this.lines.length === 0) {
      return;
    }
    const text = this.lines.length === 1 ? this.lines[0] : this.lines.join('');
    this.lines = [];
    this.length = 0;
    this.target.write(text);
  };
}
