import type { DataSourceOptions, Logger as TypeOrmLogger } from 'typeorm';

import { Plant } from '../../plants/plant.entity.js';
import { WebhookDelivery } from '../webhooks/webhook-delivery.entity.js';
import { MIGRATIONS } from './migrations/index.js';

export interface ConnectionSettings {
  readonly url: string;
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
    entities: [Plant, WebhookDelivery],
    migrations: MIGRATIONS,
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
    },
  };
}
