import type { DataSourceOptions, Logger as TypeOrmLogger } from 'typeorm';

import type { MigrationClass } from './migration-discovery.js';

export interface ConnectionSettings {
  readonly url: string;
  /** Every module's migrations, in order (see `discoverMigrations`). */
  readonly migrations: readonly MigrationClass[];
  /**
   * The entities, where no Nest module registers them (the TypeORM CLI). In the
   * service each module registers its own (`TypeOrmModule.forFeature`).
   */
  readonly entities?: DataSourceOptions['entities'];
  readonly poolSize: number;
  /** A pooled connection idle this long is closed; 0 keeps it. pg's default, 10 s, when unset. */
  readonly poolIdleTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  readonly statementTimeoutMs?: number;
  readonly idleInTransactionTimeoutMs?: number;
  readonly logger?: TypeOrmLogger;
  readonly onPoolError?: (error: Error) => void;
}

/** One definition of the connection, shared by the service, the migration script and the TypeORM CLI. */
export function buildDataSourceOptions(settings: ConnectionSettings): DataSourceOptions {
  const session = sessionOptions(settings.url);
  return {
    type: 'postgres',
    url: session.url,
    applicationName: 'plant-store',
    entities: settings.entities ?? [],
    migrations: [...settings.migrations],
    migrationsTableName: 'typeorm_migrations',
    // The schema changes only through reviewed migrations.
    synchronize: false,
    migrationsRun: false,
    logger: settings.logger,
    logging: ['warn', 'migration'],
    poolSize: settings.poolSize,
    connectTimeoutMS: settings.connectTimeoutMs,
    // An idle connection the server dropped must not take the process down with it.
    poolErrorHandler: settings.onPoolError,
    extra: {
      // Enforced by PostgreSQL on each connection ...
      statement_timeout: settings.statementTimeoutMs,
      idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs,
      // ... and by the client, for a server that stops answering altogether.
      query_timeout:
        settings.statementTimeoutMs === undefined ? undefined : settings.statementTimeoutMs + 250,
      keepAlive: true,
      idleTimeoutMillis: settings.poolIdleTimeoutMs,
      options: session.options,
    },
  };
}

/**
 * No JIT compilation: the service's statements are short, and PostgreSQL
 * decides to compile by the planner's estimated cost, which is far too high
 * for a keyset page whose LIMIT comes from a parameter: compiling then costs
 * more than the read (docs/performance.md#sessions-without-jit).
 */
const SESSION_OPTIONS = '-c jit=off';

/**
 * The connection URL, and PostgreSQL's `options` startup parameter for each
 * session. pg lets a URL's own `options` replace the client's, so those of the
 * URL are taken out of it and the service's added after them, unless they set
 * `jit` themselves: that choice stands (`?options=-c%20jit%3Don` leaves the
 * decision to PostgreSQL).
 */
export function sessionOptions(url: string): { url: string; options: string } {
  // A URL this cannot read is left to pg as it is, to refuse in its own words.
  const parsed = URL.parse(url);
  if (!parsed?.searchParams.has('options')) {
    return { url, options: SESSION_OPTIONS };
  }
  const own = parsed.searchParams.getAll('options').join(' ').trim();
  parsed.searchParams.delete('options');
  const setsJit = /(?:^|\s)(?:-c\s*|--)jit=/.test(own);
  return { url: parsed.toString(), options: setsJit ? own : `${own} ${SESSION_OPTIONS}`.trim() };
}
