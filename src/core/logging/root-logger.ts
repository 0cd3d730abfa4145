import { pino, type DestinationStream, type Logger } from 'pino';

import type { AppConfig } from '../config/app.config.js';
import { requestLogFields } from './request-context.js';
import { BatchedDestination } from './batched-destination.js';

/** Made before Nest is, so that start-up and its database retries are logged as they happen. */
export async function createRootLogger(
  { logLevel, logFormat }: Pick<AppConfig, 'logLevel' | 'logFormat'>,
  destination: DestinationStream = standardOutput(logFormat),
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
  return pino(settings, logFormat === 'pretty' ? await prettyLines(destination) : destination);
}

/** JSON lines go out in blocks, off the request's path; pretty ones at once, in order with the terminal. */
function standardOutput(logFormat: AppConfig['logFormat']): DestinationStream {
  return logFormat === 'pretty'
    ? pino.destination({ sync: true })
    : new BatchedDestination(pino.destination({ sync: false }));
}

type Flushable = DestinationStream & { flush?(callback: (error?: Error) => void): void; flushSync?(): void };

/**
 * Each line is made readable and handed over there and then: pino-pretty's own stream would hold
 * lines in a pipeline, which an exit drops. Loaded only for this format.
 */
async function prettyLines(destination: Flushable): Promise<Flushable> {
  // A CommonJS module: its functions hang off the default export.
  const { default: pretty } = await import('pino-pretty');
  const prettify = pretty.prettyFactory({ colorize: true, ignore: 'pid,hostname,service', singleLine: true });
  return {
    write: (line: string) => destination.write(prettify(line)),
    flush: (callback) => (destination.flush ? destination.flush(callback) : callback()),
    flushSync: () => destination.flushSync?.(),
  };
}

/** Writes out what is buffered: before the process exits. */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}
