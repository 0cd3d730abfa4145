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
 * Lines go to `destination`, standard output by default.
 */
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

/**
 * JSON lines are written asynchronously, in blocks, which keeps logging off
 * the request's critical path, and handed over when the process exits. The
 * development format's go out at once, in order with what else the terminal
 * shows (the development token).
 */
function standardOutput(logFormat: AppConfig['logFormat']): DestinationStream {
  return logFormat === 'pretty'
    ? pino.destination({ sync: true })
    : new BatchedDestination(pino.destination({ sync: false }));
}

type Flushable = DestinationStream & { flush?(callback: (error?: Error) => void): void; flushSync?(): void };

/**
 * The development format: each line made readable as it is logged, and handed
 * to the destination there and then. (pino-pretty's own stream would hold
 * lines in a pipeline, thousands of them under load, which an exit drops: a
 * second Ctrl-C, a crash.) pino-pretty is loaded only for this format:
 * production's JSON lines never need it.
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
