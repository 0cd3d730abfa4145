import { pino, type Logger } from 'pino';

import { appConfig, type AppConfig } from '../config/app.config.js';
import { beforeExit } from '../lifecycle/before-exit.js';
import { createRootLogger } from '../logging/root-logger.js';
import { tracingSettings } from './tracing-settings.js';

/**
 * Starts tracing when an OTLP endpoint is configured, and says so either way.
 * It must run before the application's modules load: the instrumentations
 * patch pg and node:http as they are first required. With tracing off, the
 * SDK is not loaded at all, and the OpenTelemetry API the service calls does
 * nothing.
 */
export async function startTracing(): Promise<void> {
  let config: AppConfig;
  try {
    config = appConfig();
  } catch {
    // The application's start-up names the configuration's problems, and stops.
    return;
  }
  // The application's logger is made later, with the application: this one writes the same lines. Its
  // few lines are written at once, so that they come before the application's, as they happen.
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
