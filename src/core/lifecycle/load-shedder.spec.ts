import { setTimeout as sleep } from 'node:timers/promises';

import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';

import type { HttpConfig } from '../config/http.config.js';
import { Metrics } from '../metrics/metrics.js';
import { LoadShedder } from './load-shedder.js';

import { blockEventLoop } from '../../../test/support/event-loop.js';

describe('LoadShedder', () => {
  let metrics: Metrics;
  let shedder: LoadShedder;

  function start(shedLagMs: number): LoadShedder {
    metrics = new Metrics();
    shedder = new LoadShedder({ shedLagMs } as HttpConfig, metrics);
    return shedder;
  }

  async function shedCount(): Promise<number> {
    const metric = await metrics.registry.getSingleMetric('http_requests_shed_total')?.get();
    return metric?.values[0]?.value ?? 0;
  }

  afterEach(() => shedder.onModuleDestroy());

  it('takes every request while the event loop keeps time', async () => {
    start(100);
    await sleep(250);

    expect(shedder.shouldShed()).toBe(false);
    expect(await shedCount()).toBe(0);
  });

  it('turns requests away, and counts them, as soon as the event loop runs later than the limit', async () => {
    start(100);

    blockEventLoop(300);

    // Before its timer has had a turn: the timer is overdue, which is enough.
    expect(shedder.lagMs).toBeGreaterThan(150);
    expect(shedder.shouldShed()).toBe(true);
    expect(shedder.shouldShed()).toBe(true);
    expect(await shedCount()).toBe(2);
  });

  it('takes requests again once the event loop has caught up', async () => {
    start(100);
    blockEventLoop(300);
    expect(shedder.shouldShed()).toBe(true);

    // Two measures on time.
    await sleep(250);

    expect(shedder.lagMs).toBeLessThan(100);
    expect(shedder.shouldShed()).toBe(false);
  });

  it('logs an episode once, when it ends, with how many requests it turned away', async () => {
    const logged = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      start(100);
      blockEventLoop(300);
      shedder.shouldShed();
      shedder.shouldShed();
      await sleep(250);
      blockEventLoop(300);
      shedder.shouldShed();
      await sleep(250);

      expect(warned).toHaveBeenCalledTimes(2);
      expect(logged.mock.calls.map(([message]) => String(message))).toStrictEqual([
        expect.stringMatching(/^The event loop caught up: 2 requests were answered 503 over \d+ ms$/),
        expect.stringMatching(/^The event loop caught up: 1 request was answered 503 over \d+ ms$/),
      ]);
    } finally {
      logged.mockRestore();
      warned.mockRestore();
    }
  });

  it('never turns a request away with HTTP_SHED_LAG_MS=0', () => {
    start(0);

    blockEventLoop(300);

    expect(shedder.shouldShed()).toBe(false);
  });
});
