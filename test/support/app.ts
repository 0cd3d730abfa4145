import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { DynamicModule, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import pg from 'pg';

import { createApp, listen } from '../../src/app.setup.js';
import { appConfig } from '../../src/core/config/app.config.js';
import { createRootLogger } from '../../src/core/logging/root-logger.js';
import { TEST_TOKEN } from './environment.js';
import { LogCapture } from './log-capture.js';

export interface TestApp {
  /** The application, made by the same `createApp()` as in production. */
  readonly app: NestExpressApplication;
  /** Its HTTP server, listening on a free loopback port: what supertest is given. */
  readonly server: Server;
  /** Where it listens: `http://127.0.0.1:<port>`, for clients other than supertest. */
  readonly url: string;
  /** A connection pool of the test's own, to look at (and reset) the tables. */
  readonly db: pg.Pool;
  /** What the application logged, as JSON lines. */
  readonly logs: LogCapture;
  /** Closes the application, as a shutdown does; the test's pool stays open. */
  stop(): Promise<void>;
  /** Closes the application (if still open) and the test's pool. */
  close(): Promise<void>;
}

/**
 * The application in the test's own process: `createApp()`, as `main.ts`
 * calls it, on the test database, listening on a free loopback port. `env`
 * adds or overrides the variables it is configured with (`undefined` removes
 * one); they are read while the application starts, and put back after.
 * `imports` adds modules to the application's own, as one import in
 * `app.module.ts` would.
 */
export async function startTestApp(
  env: Record<string, string | undefined> = {},
  { imports = [] }: { imports?: ReadonlyArray<Type | DynamicModule> } = {},
): Promise<TestApp> {
  const logs = new LogCapture();
  const app = await withEnvironment(
    {
      NODE_ENV: 'test',
      AUTH_TOKENS: TEST_TOKEN,
      DATABASE_URL: process.env.DATABASE_URL,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      ...env,
    },
    async () => {
      const created = await createApp({ logger: await createRootLogger(appConfig(), logs), imports });
      try {
        await listen(created, 0, '127.0.0.1');
      } catch (error) {
        // What started with the application (its database pool, its pollers) must not outlive the test.
        await created.close().catch(() => undefined);
        throw error;
      }
      return created;
    },
  );
  const server = app.getHttpServer();
  const { port } = server.address() as AddressInfo;
  const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= app.close());
  return {
    app,
    server,
    url: `http://127.0.0.1:${port}`,
    db,
    logs,
    stop,
    close: async () => {
      await Promise.all([stop(), db.end()]);
    },
  };
}

/** Applications starting at once take turns with the environment. */
let environmentInUse: Promise<unknown> = Promise.resolve();

/** Runs `start` with the environment changed as given, and puts the environment back afterwards. */
function withEnvironment<T>(env: Record<string, string | undefined>, start: () => Promise<T>): Promise<T> {
  const turn = environmentInUse.then(() => startWith(env, start));
  environmentInUse = turn.catch(() => undefined);
  return turn;
}

async function startWith<T>(env: Record<string, string | undefined>, start: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) {
      delete process.env[name];
    } else {
      process.env[name] = value;
    }
  }
  try {
    return await start();
  } finally {
    for (const name of Object.keys(process.env)) {
      if (!(name in saved)) {
        delete process.env[name];
      }
    }
    Object.assign(process.env, saved);
  }
}
