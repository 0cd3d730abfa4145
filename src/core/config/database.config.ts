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

/** Where the database is, and every bound on waiting for it. */
@Environment()
export class DatabaseEnvironment {
  /** Unset: an embedded PostgreSQL is started (refused in production). */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  /** Hot standbys for reads by id and pages, comma-separated (docs/operations.md#read-replicas). */
  @IsOptional()
  @VariableRule('isPostgresUrlList', replicaUrlProblems)
  DATABASE_REPLICA_URLS?: string;

  /** After a replica fails a read, reads go to the primary for this long before a replica is tried again. */
  @IntegerVariable(100, 600_000)
  DATABASE_REPLICA_RETRY_MS = 5_000;

  @BooleanVariable()
  DATABASE_MIGRATIONS_RUN = true;

  @IntegerVariable(1, 200)
  DATABASE_POOL_SIZE = 10;

  /**
   * 0 keeps connections open. Those a burst opened close together after it, which stalls PostgreSQL's
   * other backends when its buffers are large (docs/performance.md#pool-size-and-idle-connections).
   */
  @IntegerVariable(0, 3_600_000)
  DATABASE_POOL_IDLE_TIMEOUT_MS = 10_000;

  @IsOptional()
  @IsString()
  EMBEDDED_POSTGRES_DIR = '.data/postgres';

  /**
   * Bounds on every wait for a connection and for a statement, so that a request answers 503 rather
   * than hang when the database is gone or stuck (docs/operations.md#when-the-database-fails).
   */
  @IntegerVariable(100, 60_000)
  DATABASE_CONNECT_TIMEOUT_MS = 500;

  @IntegerVariable(100, 600_000)
  DATABASE_STATEMENT_TIMEOUT_MS = 1_000;

  /** Start-up waits for the database: this many more attempts, this far apart. */
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
