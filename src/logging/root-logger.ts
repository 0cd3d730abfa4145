import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

import type { LogLevel } from '../config/app.config.js';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

export interface RootLoggerOptions {
  readonly level: LogLevel;
  /** Human-readable lines (development) instead of JSON lines (everywhere else). */
  readonly pretty: boolean;
}

/**
 * Paths that must never reach a log line, should a later change try: the
 * service logs no headers and no bodies in the first place.
 */
const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'token',
];

/** One logger for the process: the Nest logger and the request log both write through it. */
export function createRootLogger(options: RootLoggerOptions): Logger {
  const settings = {
    level: options.level,
    base: { service: 'plant-store' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  if (options.pretty) {
    return pino(settings, pretty({ colorize: true, ignore: 'pid,hostname,service', singleLine: true }));
  }
  // Asynchronous writes keep logging off the request's critical path; flushed on shutdown.
  return pino(settings, pino.destination({ sync: false }));
}
