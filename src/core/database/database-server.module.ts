import { Module } from '@nestjs/common';

import { appConfig, type AppConfig } from '../config/app.config.js';
import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import { DatabaseServer } from './database-server.js';

/** Kept apart from `DatabaseModule` because TypeORM's options factory needs it first. */
@Module({
  providers: [
    {
      provide: DatabaseServer,
      inject: [databaseConfig.KEY, appConfig.KEY],
      useFactory: (database: DatabaseConfig, app: AppConfig) => DatabaseServer.resolve(database, app),
    },
  ],
  exports: [DatabaseServer],
})
export class DatabaseServerModule {}
