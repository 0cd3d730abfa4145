import { registerAs, type ConfigType } from '@nestjs/config';
import { IsOptional, IsString, Matches } from 'class-validator';

import {
  BooleanVariable,
  entriesThatAreNot,
  Environment,
  IntegerVariable,
  parseListEnv,
  readEnvironment,
  VariableRule,
} from './environment.js';

/** Where the database is, and every bound on waiting for it (docs/configuration.md). */
@Environment()
export class DatabaseEnvironment {
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @VariableRule('isPostgresUrlList', replicaUrlProblems)
  DATABASE_REPLICA_URLS?: string;

  @IntegerVariable(100, 600_000)
  DATABASE_REPLICA_RETRY_MS = 5_000;

  @BooleanVariable()
  DATABASE_MIGRATIONS_RUN = true;

  @IntegerVariable(1, 200)
  DATABASE_POOL_SIZE = 10;

  /** A burst's connections close together after it: docs/performance.md#pool-size-and-idle-connections. */
  @IntegerVariable(0, 3_600_000)
  DATABASE_POOL_IDLE_TIMEOUT_MS = 10_000;

  @IsOptional()
  @IsString()
  EMBEDDED_POSTGRES_DIR = '.data/postgres';

  /** Requests answer 503 rather than hang (docs/operations.md#when-the-database-fails). */
  @IntegerVariable(100, 60_000)
  DATABASE_CONNECT_TIMEOUT_MS = 500;

  @IntegerVariable(100, 600_000)
  DATABASE_STATEMENT_TIMEOUT_MS = 1_000;

  /** An exact count (`Prefer: count=exact`) past this answers the estimate (docs/api.md#lists). */
  @IntegerVariable(1, 600_000)
  LIST_COUNT_TIMEOUT_MS = 1_000;

  @IntegerVariable(0, 1_000)
  DATABASE_CONNECT_RETRIES = 10;

  @IntegerVariable(0, 60_000)
  DATABASE_CONNECT_RETRY_DELAY_MS = 1_000;

  static crossCheck(env: Readonly<Record<string, unknown>>): string[] {
    const problems: string[] = [];
    if (env.NODE_ENV === 'production' && !env.DATABASE_URL) {
      problems.push('NODE_ENV=production needs DATABASE_URL (the embedded PostgreSQL is for development)');
    }
    if (env.DATABASE_REPLICA_URLS && !env.DATABASE_URL) {
      problems.push('DATABASE_REPLICA_URLS needs DATABASE_URL, the primary they replicate');
    }
    return problems;
  }
}

export const databaseConfig = registerAs('database', () => {
  const env = readEnvironment(DatabaseEnvironment);
  return {
    url: env.DATABASE_URL,
    replicaUrls: parseListEnv(env.DATABASE_REPLICA_URLS),
    replicaRetryMs: env.DATABASE_REPLICA_RETRY_MS,
    runMigrations: env.DATABASE_MIGRATIONS_RUN,
    poolSize: env.DATABASE_POOL_SIZE,
    poolIdleTimeoutMs: env.DATABASE_POOL_IDLE_TIMEOUT_MS,
    embeddedDataDir: env.EMBEDDED_POSTGRES_DIR,
    connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    // No statement outlasts DATABASE_STATEMENT_TIMEOUT_MS: the client gives up on it soon after.
    listCountTimeoutMs: Math.min(env.LIST_COUNT_TIMEOUT_MS, env.DATABASE_STATEMENT_TIMEOUT_MS),
    /** A transaction left open this long is ended by PostgreSQL, freeing its locks. */
    idleInTransactionTimeoutMs: 5_000,
    connectRetries: env.DATABASE_CONNECT_RETRIES,
    connectRetryDelayMs: env.DATABASE_CONNECT_RETRY_DELAY_MS,
  };
});

export type DatabaseConfig = ConfigType<typeof databaseConfig>;

/** Which entries of the list are not postgres:// URLs, by position: never the URLs, which hold passwords. */
function replicaUrlProblems(value: unknown): string[] {
  const wrong = entriesThatAreNot(value, (url) => /^postgres(ql)?:\/\//.test(url) && URL.canParse(url));
  return wrong ? [`DATABASE_REPLICA_URLS must list postgres:// URLs, comma-separated; ${wrong}`] : [];
}
