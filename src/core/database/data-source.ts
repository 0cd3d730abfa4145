import 'reflect-metadata';

import { DataSource } from 'typeorm';

import { buildDataSourceOptions } from './data-source-options.js';
import { discoverMigrations, ENTITY_FILES } from './migration-discovery.js';

/** The TypeORM CLI's data source (`npm run migration:generate`, `:revert`, `:show`). */
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
