import type { DataSourceOptions } from 'typeorm';

import { Plant } from '../plants/plant.entity.js';
import { MIGRATIONS } from './migrations/index.js';

export interface ConnectionSettings {
  readonly url: string;
  readonly poolSize: number;
}

/** One definition of the connection, shared by the service and the TypeORM CLI. */
export function buildDataSourceOptions(settings: ConnectionSettings): DataSourceOptions {
  return {
    type: 'postgres',
    url: settings.url,
    applicationName: 'plant-store',
    entities: [Plant],
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    // The schema changes only through reviewed migrations.
    synchronize: false,
    migrationsRun: false,
    logging: ['error', 'warn', 'migration'],
    poolSize: settings.poolSize,
  };
}
