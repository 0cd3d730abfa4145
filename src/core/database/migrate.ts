import 'reflect-metadata';

import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { appConfig } from '../config/app.config.js';
import { databaseConfig } from '../config/database.config.js';
import { InvalidConfigurationError } from '../config/configuration-error.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { DatabaseServer } from './database-server.js';
import { discoverMigrations } from './migration-discovery.js';
import { runMigrations } from './migrations.js';

/** `npm run migration:run`, on the database the service would use. */
async function migrate(): Promise<void> {
  const logger = new Logger('Migrations');
  const database = databaseConfig();
  const server = await DatabaseServer.resolve(database, appConfig());
  const dataSource = new DataSource(
    buildDataSourceOptions({ url: server.url, poolSize: 2, migrations: await discoverMigrations() }),
  );
  try {
    await dataSource.initialize();
    await runMigrations(dataSource, logger);
  } finally {
    if (dataSource.isInitialized) {
      await dataSource.destroy();
    }
    await server.stop();
  }
}

migrate().catch((error: unknown) => {
  const message =
    error instanceof InvalidConfigurationError
      ? error.message
      : error instanceof Error
        ? error.stack
        : String(error);
  process.stderr.write(`Migrations failed: ${message}\n`);
  process.exit(1);
});
