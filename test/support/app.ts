import pg from 'pg';

import { TEST_TOKEN } from './environment.js';
import { startService, type ServiceProcess } from './service-process.js';

export interface TestApp {
  /** Where the service listens, on loopback: `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** A connection pool of the test's own, to look at (and reset) the tables. */
  readonly db: pg.Pool;
  readonly service: ServiceProcess;
  /** Stops the service (SIGTERM) and closes the test's pool. */
  close(): Promise<void>;
}

/**
 * Runs the real application, compiled, through `main.ts` exactly as in
 * production, on the test database and a free loopback port. `env` adds or
 * overrides variables (`undefined` removes one).
 *
 * The service runs in a process of its own rather than inside Jest: on Node
 * 20, Jest cannot load a CommonJS package that requires the ESM-only NestJS
 * 12 (such as `@nestjs/throttler`), which Node itself does.
 */
export async function startTestApp(env: Record<string, string | undefined> = {}): Promise<TestApp> {
  const service = await startService({
    NODE_ENV: 'test',
    AUTH_TOKENS: TEST_TOKEN,
    DATABASE_URL: process.env.DATABASE_URL,
    LOG_LEVEL: 'warn',
    ...env,
  });
  const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
  return {
    url: service.url,
    db,
    service,
    close: async () => {
      await Promise.all([service.stop(), db.end()]);
    },
  };
}
