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
  readonly connectTimeoutMs?: number;
  readonly statementTimeoutMs?: number;
  readonly idleInTransactionTimeoutMs?: number;
  readonly logger?: TypeOrmLogger;
  readonly onPoolError?: (error: Error) => void;
}

/** One definition of the connection, shared by the service, the migration script and the TypeORM CLI. */
export function buildDataSourceOptions(settings: ConnectionSettings): DataSourceOptions {
  return {
    type: 'postgres',
    url: settings.url,
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
      // No JIT compilation: the service's statements are short, and PostgreSQL
      // decides to compile by the planner's estimated cost, which is far too high
      // for a keyset page whose LIMIT comes from a parameter. On ten million rows
      // each page then spent about 70 ms in LLVM (docs/performance.md#sessions-without-jit).
      options: '-c jit=off',
    },
  };
}
