import { pino, type Logger } from 'pino';

import { appConfig, type AppConfig } from '../config/app.config.js';
import { beforeExit } from '../lifecycle/before-exit.js';
import { createRootLogger } from '../logging/root-logger.js';
import { tracingSettings } from './tracing-settings.js';

/**
 * Must run before the application's modules load: the instrumentations patch pg and node:http as they
 * are first required. With tracing off the SDK is not even loaded.
 */
export async function startTracing(): Promise<void> {
  let config: AppConfig;
  try {
    config = appConfig();
  } catch {
    // The application's start-up names the configuration's problems, and stops.
    return;
  }
  // Written at once, so that these lines come before those of the application's own logger.
  const root = await createRootLogger(config, pino.destination({ sync: true }));
  const logger = root.child({ context: 'Tracing' });
  const settings = tracingSettings(process.env);
  if (!settings.enabled) {
    logger.info(`Tracing is off: ${settings.reason}`);
    return;
  }

  const { startSdk } = await import('./tracing-sdk.js');
  const shutdown = startSdk(root, settings.protocol);
  logger.info(
    `Tracing is on: spans go to ${settings.endpoint} (OTLP ${settings.protocol}), sampler ${settings.sampler}`,
  );
  for (const setting of settings.unsupported) {
    logger.warn(`Tracing ignores ${setting}`);
  }
  beforeExit(() => flushTraces(shutdown, logger));
}

/** A collector that does not answer must not hold the exit for long. */
const FLUSH_TIMEOUT_MS = 5_000;

async function flushTraces(shutdown: () => Promise<void>, logger: Logger): Promise<void> {
  const flushed = await Promise.race([
    shutdown().then(
      () => true,
      () => false,
    ),
    new Promise<false>((resolve) => setTimeout(resolve, FLUSH_TIMEOUT_MS, false).unref()),
  ]);
  if (!flushed) {
    logger.warn('The last spans could not be exported before the exit');
  }
}
