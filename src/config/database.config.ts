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
  };
});

export type DatabaseConfig = ConfigType<typeof databaseConfig>;
