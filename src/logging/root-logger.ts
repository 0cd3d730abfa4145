import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

import { appConfig } from '../config/app.config.js';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

let rootLogger: Logger | undefined;

/**
 * The process's one logger: Nest's logger and the request log both write
 * through it. It exists before Nest does, so that start-up (and its database
 * retries) is logged as it happens, in the configured format.
 */
export function getRootLogger(): Logger {
  if (!rootLogger) {
    const { logLevel, logFormat } = appConfig();
    const settings = {
      level: logLevel,
      base: { service: 'plant-store' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label: string) => ({ level: label }) },
      // No redaction paths: nothing the service logs holds a header, a token or a body
      // (test/observability.e2e-spec.ts greps the log for them), and redaction costs on every line.
    };
    rootLogger =
      logFormat === 'pretty'
        ? pino(settings, pretty({ colorize: true, ignore: 'pid,hostname,service', singleLine: true }))
        : // Asynchronous writes keep logging off the request's critical path; flushed on shutdown.
          pino(settings, pino.destination({ sync: false }));
  }
  return rootLogger;
}

/** Writes out what is buffered: before the process exits. */
export function flushRootLogger(): Promise<void> {
  return new Promise((resolve) => (rootLogger ? rootLogger.flush(() => resolve()) : resolve()));
}
