/**
 * A pino destination that keeps every line in memory, for tests that read
 * what the application logged.
 */
export class LogCapture {
  private readonly lines: string[] = [];

  write(line: string): void {
    this.lines.push(line);
  }

  /** Everything logged so far, one JSON object per line. */
  text(): string {
    return this.lines.join('');
  }

  /** The lines logged so far, parsed. */
  entries(): Array<Record<string, unknown>> {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}
