import 'reflect-metadata';

import { DataSource } from 'typeorm';

import { buildDataSourceOptions } from './data-source-options.js';
import { discoverMigrations, ENTITY_FILES } from './migration-discovery.js';

/**
 * The data source the TypeORM CLI works with (`npm run migration:generate`,
 * `migration:revert`, `migration:show`), on the database `DATABASE_URL` names.
 */
const url = process.env.DATABASE_URL;
if (!url) {
  throw new Error('Set DATABASE_URL to the database the TypeORM CLI should work on');
}

export default new DataSource(
  buildDataSourceOptions({
    url,
    poolSize: 2,
    entities: [ENTITY_FILES],
    migrations: await discoverMigrations(),
  }),
);
