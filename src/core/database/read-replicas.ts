import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager, type ReplicationMode } from 'typeorm';

import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import { isDatabaseUnavailableError } from './database-errors.js';

/**
 * For reads that may be a moment behind the last write, served by a hot standby when there is one
 * (docs/operations.md#read-replicas). A read a replica cannot answer runs again on the primary, and
 * reads stay there for `DATABASE_REPLICA_RETRY_MS`: a failed replica costs one slow read, not errors.
 */
@Injectable()
export class ReadReplicas {
  private readonly logger = new Logger('Database');
  /** Until when reads skip the replicas (ms since the epoch). */
  private primaryUntil = 0;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(databaseConfig.KEY) private readonly config: DatabaseConfig,
  ) {}

  async read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.config.replicaUrls.length === 0) {
      return work(this.dataSource.manager);
    }
    if (Date.now() >= this.primaryUntil) {
      try {
        return await this.on('slave', work);
      } catch (error) {
        if (!isReplicaFailure(error)) {
          throw error;
        }
        this.logger.warn(
          `A replica could not answer (${error instanceof Error ? error.message : String(error)}): ` +
            `reads go to the primary for ${this.config.replicaRetryMs} ms`,
        );
        this.primaryUntil = Date.now() + this.config.replicaRetryMs;
      }
    }
    return this.on('master', work);
  }

  private async on<T>(mode: ReplicationMode, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner(mode);
    try {
      return await work(runner.manager);
    } finally {
      await runner.release();
    }
  }
}

/** Unavailable, or a query a standby cancelled as it replayed the primary's changes (40001). */
function isReplicaFailure(error: unknown): boolean {
  return (
    isDatabaseUnavailableError(error) ||
    (error as { driverError?: { code?: unknown } }).driverError?.code === '40001' ||
    (error as { code?: unknown }).code === '40001'
  );
}
