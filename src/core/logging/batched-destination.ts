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
  /** How long a line may be held at most. */
  readonly maxDelayMs: number;
}

export const DEFAULT_BATCHING: BatchedDestinationOptions = { maxLength: 4 * 1024, maxDelayMs: 100 };

/**
 * Hands `target` the log lines in blocks: once the lines held reach
 * `maxLength`, or `maxDelayMs` after the first of them, whichever comes first.
 *
 * Each write of sonic-boom, pino's asynchronous destination, goes through
 * libuv's thread pool: a hand-over to a thread and a wake-up of the event loop
 * when it is done, which cost far more than the write itself. Written a line
 * at a time, or a turn of the event loop at a time, that cost falls on every
 * request when requests are few per turn. In blocks of 4 KiB it falls on a
 * dozen lines or more.
 * Blocks also spare sonic-boom's measuring of the text it holds at every
 * write, which copies all of it
 * ([Performance](../../../docs/performance.md#the-log-line)).
 *
 * `flush` and `flushSync` hand over what is held first, and so does the
 * process's exit, before sonic-boom's own last flush; pino calls `flushSync`
 * after every `fatal` line.
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
