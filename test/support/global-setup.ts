import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Jest loads global set-up outside its module system, where the TypeScript
// sources cannot be resolved: it uses the build (`npm test` builds first).
import { EmbeddedPostgres } from '../../dist/core/database/embedded-postgres.js';

const TEST_DATABASE = 'plant_store_test';

declare global {
  var embeddedPostgres: EmbeddedPostgres | undefined;
}

/**
 * The e2e suites run against a real PostgreSQL: the one `DATABASE_URL` names,
 * or else a throw-away embedded one, started once for every project of the
 * run. Each suite truncates the tables it uses, so the database must be one
 * made for tests: its name must say so.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) {
    const name = new URL(process.env.DATABASE_URL).pathname.slice(1);
    if (!/test/i.test(name)) {
      throw new Error(`Refusing to run the e2e tests on database "${name}": its name must contain "test"`);
    }
    return;
  }
  const server = await EmbeddedPostgres.start({
    dataDir: join(tmpdir(), `plant-store-test-${process.pid}-${Date.now()}`),
    database: TEST_DATABASE,
    ephemeral: true,
  });
  globalThis.embeddedPostgres = server;
  process.env.DATABASE_URL = server.url;
  // Ctrl-C ends Jest by the signal itself, with no exit to hook, and the server runs in a
  // session of its own: it would outlive the run. It is stopped first, and then the signal
  // does what it would have done.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void server.stop('immediate').finally(() => process.kill(process.pid, signal));
    });
  }
}
