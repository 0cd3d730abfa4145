import 'reflect-metadata';

import type { AddressInfo } from 'node:net';

import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger as PinoLogger } from 'pino';

import { createApp, listen } from './app.setup.js';
import { DEV_TOKEN } from './core/auth/dev-token.js';
import { appConfig, type AppConfig } from './core/config/app.config.js';
import { httpConfig, type HttpConfig } from './core/config/http.config.js';
import { InvalidConfigurationError } from './core/config/configuration-error.js';
import { isDatabaseUnavailableError } from './core/database/database-errors.js';
import { enableGracefulShutdown } from './core/lifecycle/graceful-shutdown.js';
import { createRootLogger, flushLogger } from './core/logging/root-logger.js';

let rootLogger: PinoLogger | undefined;

async function bootstrap(): Promise<void> {
  rootLogger = await createRootLogger(appConfig());
  const app = await createApp({ logger: rootLogger });
  try {
    const config = app.get<AppConfig>(appConfig.KEY);
    enableGracefulShutdown(app, { timeoutMs: config.shutdownTimeoutMs, logger: rootLogger });
    await listen(app, config.port, config.host);
    announce(app, config);
  } catch (error) {
    // Release what start-up took (the pool, an embedded PostgreSQL) before giving up.
    await app.close().catch(() => undefined);
    throw error;
  }
}

function announce(app: NestExpressApplication, config: AppConfig): void {
  // The port actually bound: PORT=0 asks for any free one.
  const { port } = app.getHttpServer().address() as AddressInfo;
  const base = `http://${authority(config.host, port)}`;
  const docs = app.get<HttpConfig>(httpConfig.KEY).docsEnabled ? ` (Swagger UI: ${base}/docs)` : '';
  new Logger('Bootstrap').log(`Plant Store is listening on ${base}${docs}, on Node.js ${process.version}`);
  const devToken = app.get<string | undefined>(DEV_TOKEN);
  if (devToken) {
    // Development only, and on the terminal rather than in the log: production never has a dev token.
    process.stdout.write(
      `\n  Development bearer token (no AUTH_TOKENS set; kept in .data/auth/dev-token):\n\n    ${devToken}\n\n` +
        `  Try: curl -X POST ${base}/plants -H 'Authorization: Bearer ${devToken}' \\\n` +
        `         -H 'Content-Type: application/json' -d '{"id": 1, "name": "Monstera"}'\n\n`,
    );
  }
}

/** `host:port`, an IPv6 address in brackets. */
function authority(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** An operator's explanation: configuration, database and port problems need no stack trace. */
function explain(error: unknown): string {
  if (error instanceof InvalidConfigurationError) {
    return error.message;
  }
  if (isAddressInUse(error)) {
    return `${authority(error.address, error.port)} is taken by another process (another instance of the service?): stop it, or set PORT to a free port`;
  }
  if (isDatabaseUnavailableError(error)) {
    const reason = error instanceof Error ? error.message : String(error);
    return `the database could not be reached (${reason}); check DATABASE_URL and that PostgreSQL is up`;
  }
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

function isAddressInUse(error: unknown): error is NodeJS.ErrnoException & { address: string; port: number } {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'EADDRINUSE' && 'port' in error;
}

bootstrap().catch(async (error: unknown) => {
  if (rootLogger) {
    await flushLogger(rootLogger);
  }
  process.stderr.write(`Plant Store failed to start: ${explain(error)}\n`);
  process.exit(1);
});
