import type { DataSourceOptions, Logger as TypeOrmLogger } from 'typeorm';

import type { MigrationClass } from './migration-discovery.js';

export interface ConnectionSettings {
  readonly url: string;
  readonly replicaUrls?: readonly string[];
  /** The `pg` module TypeORM opens its pools with: `pg` itself by default (see `DatabasePools`). */
  readonly driver?: unknown;
  readonly migrations: readonly MigrationClass[];
  /** Only where no Nest module registers them (the TypeORM CLI). */
  readonly entities?: DataSourceOptions['entities'];
  readonly poolSize: number;
  /** 0 keeps a connection; unset, pg's default. */
  readonly poolIdleTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  readonly statementTimeoutMs?: number;
  readonly idleInTransactionTimeoutMs?: number;
  readonly logger?: TypeOrmLogger;
  readonly onPoolError?: (error: Error) => void;
}

/** One definition of the connection, shared by the service, the migration script and the TypeORM CLI. */
export function buildDataSourceOptions(settings: ConnectionSettings): DataSourceOptions {
  const replicas = settings.replicaUrls ?? [];
  return {
    type: 'postgres',
    ...(replicas.length === 0
      ? { url: settings.url }
      : {
          // Reads go to the primary unless a service asks for a replica (`ReadReplicas`): a read
          // right after a write finds it, and a replica that fails costs nothing it did not ask for.
          replication: {
            master: { url: settings.url },
            slaves: replicas.map((url) => ({ url })),
            defaultMode: 'master',
          },
        }),
    driver: settings.driver,
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
    },
  };
}
