import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { pino } from 'pino';

import {
  BatchedDestination,
  type BatchedDestinationOptions,
  type FlushableDestination,
} from './batched-destination.js';

describe('BatchedDestination', () => {
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const made: Array<() => void> = [];

  /** A destination whose exit listener (the first one, as it prepends it) is taken off after the test. */
  function batching(
    target: FlushableDestination,
    options: BatchedDestinationOptions = { maxLength: 1024, maxDelayMs: 60_000 },
  ): { destination: BatchedDestination; exit: () => void } {
    const destination = new BatchedDestination(target, options);
    const exit = process.listeners('exit')[0] as () => void;
    made.push(() => process.removeListener('exit', exit));
    return { destination, exit };
  }

  function recording() {
    const events: string[] = [];
    const target: FlushableDestination = {
      write: (text) => events.push(`write ${text}`),
      flush: (callback) => {
        events.push('flush');
        callback();
      },
      flushSync: () => events.push('flushSync'),
    };
    return { target, events };
  }

  afterEach(() => made.splice(0).forEach((undo) => undo()));

  it('holds lines across turns, and hands them over as one string, in order, once they reach maxLength', async () => {
    const { target, events } = recording();
    const { destination } = batching(target, { maxLength: 6, maxDelayMs: 60_000 });
    destination.write('a\n');
    destination.write('b\n');
    await turn();
    expect(events).toStrictEqual([]);

    destination.write('c\n');
    expect(events).toStrictEqual(['write a\nb\nc\n']);

    destination.write('a line longer than maxLength\n');
    expect(events).toStrictEqual(['write a\nb\nc\n', 'write a line longer than maxLength\n']);
  });

  it('holds no line longer than maxDelayMs, however few they are', async () => {
    const { target, events } = recording();
    const { destination } = batching(target, { maxLength: 1024, maxDelayMs: 200 });
    destination.write('a\n');
    await sleep(20);
    destination.write('b\n');
    await turn();
    expect(events).toStrictEqual([]);

    await sleep(300);
    expect(events).toStrictEqual(['write a\nb\n']);

    // The next block's first line starts its own delay.
    destination.write('c\n');
    await sleep(20);
    expect(events).toStrictEqual(['write a\nb\n']);
    await sleep(300);
    expect(events).toStrictEqual(['write a\nb\n', 'write c\n']);
  });

  it('hands over what it holds before flushing, and writes nothing twice', async () => {
    const { target, events } = recording();
    const { destination } = batching(target);
    destination.write('a\n');
    destination.flush(() => events.push('flushed'));
    destination.write('b\n');
    destination.flushSync();
    await turn();

    expect(events).toStrictEqual(['write a\n', 'flush', 'flushed', 'write b\n', 'flushSync']);
  });

  it('hands over what it holds when the process exits, before anything else does', () => {
    const { target, events } = recording();
    const { destination, exit } = batching(target);
    destination.write('a\n');

    expect(process.listeners('exit')[0]).toBe(exit);
    exit();
    expect(events).toStrictEqual(['write a\n']);
  });

  it('writes every line through sonic-boom, in order, across turns', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plant-store-log-'));
    try {
      const file = join(dir, 'log');
      const sonic = pino.destination({ dest: file, sync: false });
      await once(sonic, 'ready');
      const { destination } = batching(sonic);
      const lines = Array.from(
        { length: 3000 },
        (_, index) => `{"line":${index},"text":"${'x'.repeat(index % 300)}"}\n`,
      );
      for (const [index, line] of lines.entries()) {
        destination.write(line);
        if (index % 700 === 0) {
          await turn();
        }
      }
      // sonic-boom's flush hands everything to its writes, and answers without waiting for them.
      destination.flush(() => undefined);
      const expected = lines.join('');
      let written = '';
      for (let waited = 0; written.length < expected.length && waited < 5_000; waited += 10) {
        await sleep(10);
        written = await readFile(file, 'utf8');
      }

      expect(written).toBe(expected);
      sonic.destroy();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
