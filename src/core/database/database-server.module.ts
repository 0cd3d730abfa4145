import { Module } from '@nestjs/common';

import { appConfig, type AppConfig } from '../config/app.config.js';
import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import { DatabasePools } from './database-pools.js';
import { DatabaseServer } from './database-server.js';

/** Kept apart from `DatabaseModule` because TypeORM's options factory needs these first. */
@Module({
  providers: [
    {
      provide: DatabaseServer,
      inject: [databaseConfig.KEY, appConfig.KEY],
      useFactory: (database: DatabaseConfig, app: AppConfig) => DatabaseServer.resolve(database, app),
    },
    {
      provide: DatabasePools,
      inject: [DatabaseServer],
      useFactory: (server: DatabaseServer) => new DatabasePools(server.url),
    },
  ],
  exports: [DatabaseServer, DatabasePools],
})
export class DatabaseServerModule {}
