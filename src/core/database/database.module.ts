import {
  Global,
  Inject,
  Logger,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { DatabasePoolMetrics } from './database-pool.metrics.js';
import { DatabasePools } from './database-pools.js';
import { DatabaseServer } from './database-server.js';
import { DatabaseServerModule } from './database-server.module.js';
import { runMigrations } from './migrations.js';
import { discoverMigrations } from './migration-discovery.js';
import { ReadReplicas } from './read-replicas.js';
import { TypeOrmNestLogger } from './typeorm-logger.js';

/** TypeORM's data source, its migrations, and `ReadReplicas` for any module. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      imports: [DatabaseServerModule],
      inject: [DatabaseServer, DatabasePools, databaseConfig.KEY],
      useFactory: async (server: DatabaseServer, pools: DatabasePools, config: DatabaseConfig) => {
        const logger = new Logger('Database');
        return {
          ...buildDataSourceOptions({
            url: server.url,
            replicaUrls: config.replicaUrls,
            driver: pools.driver,
            migrations: await discoverMigrations(),
            poolSize: config.poolSize,
            poolIdleTimeoutMs: config.poolIdleTimeoutMs,
            connectTimeoutMs: config.connectTimeoutMs,
            statementTimeoutMs: config.statementTimeoutMs,
            idleInTransactionTimeoutMs: config.idleInTransactionTimeoutMs,
            logger: new TypeOrmNestLogger(logger),
            onPoolError: (error) =>
              logger.warn(`A pooled connection failed and was dropped: ${error.message}`),
          }),
          // Each module registers its entities (TypeOrmModule.forFeature): no list to keep here.
          autoLoadEntities: true,
          // Start-up waits for the database, logging each attempt, then gives up.
          retryAttempts: config.connectRetries,
          retryDelay: config.connectRetryDelayMs,
        };
      },
    }),
    DatabaseServerModule,
  ],
  providers: [ReadReplicas, DatabasePoolMetrics],
  exports: [ReadReplicas],
})
export class DatabaseModule implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Database');

  constructor(
    private readonly dataSource: DataSource,
    private readonly server: DatabaseServer,
    @Inject(databaseConfig.KEY) private readonly config: DatabaseConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.runMigrations) {
      await runMigrations(this.dataSource, this.logger);
    }
  }

  /** The pool must close before its server stops, and Nest shuts TypeORM's global module down last. */
  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.dataSource.destroy();
    }
    await this.server.stop();
  }
}
