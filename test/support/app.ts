import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { DynamicModule, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import pg from 'pg';

import { createApp, listen } from '../../src/app.setup.js';
import { appConfig } from '../../src/core/config/app.config.js';
import { createRootLogger } from '../../src/core/logging/root-logger.js';
import { closeAll } from './cleanup.js';
import { truncateAll } from './database.js';
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

/** Variables to add to (or, `undefined`, remove from) the application's environment. */
export type TestEnv = Record<string, string | undefined>;

export interface TestAppOptions {
  /** Modules added to the application's own, as one import in `app.module.ts` would. */
  readonly imports?: ReadonlyArray<Type | DynamicModule>;
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
  env: TestEnv = {},
  { imports = [] }: TestAppOptions = {},
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

/** A server the application talks to (a webhook receiver, a token issuer). */
export interface TestServer {
  start(): Promise<unknown>;
  /** Stops it, if it started. */
  stop(): Promise<unknown>;
}

/**
 * The application of one describe block, through Jest hooks: started before
 * the block's tests, after `servers`, with `env` (or with what `env()`
 * answers then, when it names a server's address), every table emptied
 * before each test, as the suites share the test database, and closed after
 * the tests, then the servers stopped. What it answers stands for that
 * application inside the block's tests and hooks.
 */
export function useTestApp(
  env: TestEnv | (() => TestEnv | Promise<TestEnv>) = {},
  { servers = [], ...options }: TestAppOptions & { readonly servers?: readonly TestServer[] } = {},
): TestApp {
  let started: TestApp | undefined;
  const current = (): TestApp => {
    if (!started) {
      throw new Error('The application runs only inside the tests and hooks of its describe block');
    }
    return started;
  };
  beforeAll(async () => {
    for (const server of servers) {
      await server.start();
    }
    started = await startTestApp(typeof env === 'function' ? await env() : env, options);
  });
  afterAll(async () => {
    await closeAll(() => started?.close(), ...servers.map((server) => () => server.stop()));
  });
  beforeEach(async () => {
    await truncateAll(current().db);
  });
  return {
    get app() {
      return current().app;
    },
    get server() {
      return current().server;
    },
    get url() {
      return current().url;
    },
    get db() {
      return current().db;
    },
    get logs() {
      return current().logs;
    },
    stop: () => current().stop(),
    close: () => current().close(),
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
