import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager, type ReplicationMode } from 'typeorm';

import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import { isDatabaseUnavailableError } from './database-errors.js';

/**
 * Reads that may be served by a hot standby (`DATABASE_REPLICA_URLS`):
 *
 * ```ts
 * const plant = await this.replicas.read((manager) => manager.findOneBy(Plant, { id }));
 * ```
 *
 * `work` gets an `EntityManager` on a replica (TypeORM picks one), or on the
 * primary when none is configured. A replica answers what it has replayed so
 * far, which may be a moment behind: a read right after a write may not find
 * it yet, so reads that must see a write go to the primary as every other
 * read does (`dataSource.manager`, a repository, a transaction).
 *
 * When a replica cannot answer (down, unreachable, too slow, or a query
 * cancelled by its recovery), the read is run again on the primary at once,
 * and reads go to the primary for `DATABASE_REPLICA_RETRY_MS` before a
 * replica is tried again: a failed replica costs one slow read, not errors.
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
