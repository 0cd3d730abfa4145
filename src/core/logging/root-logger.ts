import { pino, type DestinationStream, type Logger } from 'pino';

import type { AppConfig } from '../config/app.config.js';
import { requestLogFields } from './request-context.js';
import { BatchedDestination } from './batched-destination.js';

/**
 * The process's one logger: Nest's logger and the request log both write
 * through it. It is made before Nest is, so that start-up (and its database
 * retries) is logged as it happens, in the configured format. Every line
 * written on a request's behalf carries the request's id and principal.
 *
 * pino-pretty, the development format's, is loaded only for that format:
 * production's JSON lines never need it.
 */
export async function createRootLogger(
  { logLevel, logFormat }: Pick<AppConfig, 'logLevel' | 'logFormat'>,
  destination?: DestinationStream,
): Promise<Logger> {
  const settings = {
    level: logLevel,
    base: { service: 'plant-store' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    mixin: requestLogFields,
    // No redaction paths: nothing the service logs holds a header, a token or a body
    // (test/observability.e2e-spec.ts greps the log for them), and redaction costs on every line.
  };
  if (destination) {
    return pino(settings, destination);
  }
  if (logFormat === 'pretty') {
    const { default: pretty } = await import('pino-pretty');
    return pino(settings, pretty({ colorize: true, ignore: 'pid,hostname,service', singleLine: true }));
  }
  // Asynchronous writes keep logging off the request's critical path; flushed on shutdown.
  return pino(settings, new BatchedDestination(pino.destination({ sync: false })));
}

/** Writes out what is buffered: before the process exits. */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}
