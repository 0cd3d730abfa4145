import { ServiceUnavailableException } from '@nestjs/common';
import type { HealthCheckService } from '@nestjs/terminus';

import { ShutdownState } from '../lifecycle/shutdown-state.js';
import type { DatabaseHealthIndicator } from './database.health.js';
import { HealthController } from './health.controller.js';

describe('HealthController', () => {
  const checked: unknown[] = [];
  const health = {
    check: (indicators: unknown[]) => (checked.push(indicators), Promise.resolve({ status: 'ok' })),
  };
  const database = { ping: () => Promise.resolve({ database: { status: 'up' } }) };

  function controller(shutdown = new ShutdownState()) {
    return new HealthController(
      health as unknown as HealthCheckService,
      database as unknown as DatabaseHealthIndicator,
      shutdown,
    );
  }

  it('is ready while serving, after pinging the database', async () => {
    await expect(controller().ready()).resolves.toStrictEqual({ status: 'ok' });
    expect(checked.at(-1)).toHaveLength(1);
  });

  it('turns unready (503) from the first moment of a shutdown, while still alive', async () => {
    const shutdown = new ShutdownState();
    shutdown.begin();

    expect(() => controller(shutdown).ready()).toThrow(
      new ServiceUnavailableException('The service is shutting down'),
    );
    await expect(controller(shutdown).live()).resolves.toStrictEqual({ status: 'ok' });
  });
});
