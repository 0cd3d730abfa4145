import { createRootLogger, flushLogger } from './root-logger.js';

describe('createRootLogger', () => {
  /** A destination that keeps what it is given, and counts its flushes. */
  function recording() {
    const lines: string[] = [];
    let flushes = 0;
    return {
      lines,
      flushes: () => flushes,
      write: (line: string) => void lines.push(line),
      flush: (callback: (error?: Error) => void) => {
        flushes += 1;
        callback();
      },
    };
  }

  it('writes JSON lines as they are logged', async () => {
    const destination = recording();
    const logger = await createRootLogger({ logLevel: 'info', logFormat: 'json' }, destination);

    logger.info({ context: 'Test' }, 'planted');

    expect(JSON.parse(destination.lines[0])).toMatchObject({
      level: 'info',
      service: 'plant-store',
      context: 'Test',
      msg: 'planted',
    });
  });

  it('writes readable lines as they are logged, none held back for an exit to drop', async () => {
    const destination = recording();
    const logger = await createRootLogger({ logLevel: 'info', logFormat: 'pretty' }, destination);

    for (let index = 0; index < 5_000; index++) {
      logger.info({ context: 'Test' }, `line ${index}`);
    }
    logger.warn('last');

    // Synchronously: what a process.exit() right now would keep.
    expect(destination.lines).toHaveLength(5_001);
    const last = destination.lines.at(-1) ?? '';
    expect(last).toContain('WARN');
    expect(last).toContain('last');
    expect(last).not.toContain('"level"');
    expect(last).not.toContain('plant-store');
    expect(destination.lines[4_999]).toContain('line 4999');
    expect(destination.lines[4_999]).toContain('"context":"Test"');
  });

  it("flushes the destination's held lines in either format", async () => {
    for (const logFormat of ['json', 'pretty'] as const) {
      const destination = recording();
      const logger = await createRootLogger({ logLevel: 'info', logFormat }, destination);

      await flushLogger(logger);

      expect(destination.flushes()).toBe(1);
    }
  });
});
