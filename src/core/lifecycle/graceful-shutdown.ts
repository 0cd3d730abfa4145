import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';

import type { Logger as PinoLogger } from 'pino';

import { HttpListeners } from '../http/http-listeners.js';
import { flushLogger } from '../logging/root-logger.js';

import { runBeforeExit } from './before-exit.js';
import { ShutdownState } from './shutdown-state.js';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Drains, closes the application, runs the `beforeExit` tasks and exits 0; a second signal exits at
 * once (docs/operations.md#shutdown).
 */
export function enableGracefulShutdown(
  app: NestExpressApplication,
  options: { timeoutMs: number; logger: PinoLogger },
): void {
  const logger = new Logger('Shutdown');
  let started = false;

  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    logger.log(`${signal} received: draining in-flight requests (up to ${options.timeoutMs} ms)`);
    app.get(ShutdownState).begin();

    const server: Server = app.getHttpServer();
    // Every listening socket closes; resolved when the connections of all of them are gone.
    const drained = Promise.all([app.getHttpAdapter().close(), app.get(HttpListeners).close()]).then(
      () => true,
    );
    server.closeIdleConnections();
    const clean = await Promise.race([drained, sleep(options.timeoutMs, false, { ref: false })]);
    if (!clean) {
      logger.warn('Shutdown timeout reached: closing the connections still open');
      server.closeAllConnections();
    }

    await app.close();
    await runBeforeExit();
    logger.log('Shut down cleanly');
    await flushLogger(options.logger);
  };

  for (const signal of SIGNALS) {
    process.on(signal, () => {
      if (started) {
        logger.warn(`${signal} received again: exiting now`);
        process.exit(1);
      }
      started = true;
      shutdown(signal).then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error('Shutdown failed', error instanceof Error ? error.stack : String(error));
          process.exit(1);
        },
      );
    });
  }
}
