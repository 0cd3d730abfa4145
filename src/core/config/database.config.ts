import { registerAs, type ConfigType } from '@nestjs/config';

import { parseBooleanEnv, readEnvironment } from './environment.js';

export const databaseConfig = registerAs('database', () => {
  const env = readEnvironment();
  return {
    /** Unset means: start an embedded PostgreSQL (refused in production). */
    url: env.DATABASE_URL || undefined,
    runMigrations: parseBooleanEnv(env.DATABASE_MIGRATIONS_RUN, true),
    poolSize: env.DATABASE_POOL_SIZE ?? 10,
    embeddedDataDir: env.EMBEDDED_POSTGRES_DIR || '.data/postgres',
    /**
     * Bounds on every wait, so that a request answers 503 within about two
     * seconds when the database is gone or stuck, instead of hanging: one for a
     * connection (a new one, or a free one from the pool), one for a statement
     * (enforced by PostgreSQL, and by the client should the server not answer).
     */
    connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS ?? 500,
    statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS ?? 1_000,
    /** A transaction left open this long is ended by PostgreSQL, freeing its locks. */
    idleInTransactionTimeoutMs: 5_000,
    /** Create statements in flight at once, each carrying up to `writeBatchSize` plants (see PlantWriter). */
    writeConcurrency: env.DATABASE_WRITE_CONCURRENCY ?? 2,
    writeBatchSize: 256,
    /** Start-up waits for the database: this many more attempts, this far apart. */
    connectRetries: env.DATABASE_CONNECT_RETRIES ?? 10,
    connectRetryDelayMs: env.DATABASE_CONNECT_RETRY_DELAY_MS ?? 1_000,
  };
});

export type DatabaseConfig = ConfigType<typeof databaseConfig>;
