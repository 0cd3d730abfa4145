import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, type EntityMetadata, type ObjectLiteral } from 'typeorm';

import { retentionConfig, type RetentionConfig } from '../config/retention.config.js';
import { AuditEvent } from './audit-event.entity.js';
import { auditCaller, recordAudit } from './audit-trail.js';

/** Any fixed number: the key of the advisory lock that keeps retention to one instance at a time. */
const RETENTION_LOCK_KEY = 0x7265746e; // "retn"

/**
 * What retention removes from the audit trail and the soft-deleted records, a batch at a time. Each
 * batch is a transaction that takes an advisory lock first, so that of several instances one prunes
 * and the others skip; the trail's trigger lets a `DELETE` through only in a transaction that says it
 * prunes. These two statements are written by hand, on record in src/core/audit/audit.sql.
 */
@Injectable()
export class AuditRetention {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(retentionConfig.KEY) private readonly config: RetentionConfig,
  ) {}

  get isEnabled(): boolean {
    return this.config.auditRetentionDays > 0 || this.config.softDeleteRetentionDays > 0;
  }

  /** Deletes up to `size` events older than `AUDIT_RETENTION_DAYS`; answers how many, 0 while another instance prunes. */
  pruneEvents(size: number): Promise<number> {
    if (this.config.auditRetentionDays === 0) {
      return Promise.resolve(0);
    }
    return this.underLock(async (manager) => {
      await manager.query(`SET LOCAL plant_store.audit_prune = 'on'`);
      const expired = manager
        .createQueryBuilder(AuditEvent, 'expired')
        .select('expired.id')
        .where('expired.at < now() - make_interval(days => :days)', { days: this.config.auditRetentionDays })
        .orderBy('expired.id')
        .limit(size);
      const { affected } = await manager
        .createQueryBuilder()
        .delete()
        .from(AuditEvent)
        .where(`id IN (${expired.getQuery()})`)
        .setParameters(expired.getParameters())
        .execute();
      return affected ?? 0;
    });
  }

  /**
   * Purges up to `size` records of one soft-deleting entity deleted more than
   * `SOFT_DELETE_RETENTION_DAYS` ago, each recorded in the audit trail as deleted by the service.
   */
  purgeSoftDeleted(metadata: EntityMetadata, size: number): Promise<number> {
    const deleteDate = metadata.deleteDateColumn;
    if (this.config.softDeleteRetentionDays === 0 || !deleteDate) {
      return Promise.resolve(0);
    }
    return this.underLock(async (manager) => {
      const expired = manager
        .createQueryBuilder(metadata.target, 'expired')
        .withDeleted()
        .select(metadata.primaryColumns.map((column) => `expired.${column.propertyPath}`))
        .where(`expired.${deleteDate.propertyPath} < now() - make_interval(days => :days)`, {
          days: this.config.softDeleteRetentionDays,
        })
        .limit(size);
      const keys = metadata.primaryColumns.map((column) => `"${column.databaseName}"`).join(', ');
      const deleted = await manager
        .createQueryBuilder()
        .delete()
        .from(metadata.target)
        .where(`(${keys}) IN (${expired.getQuery()})`)
        .setParameters(expired.getParameters())
        .returning('*')
        .execute();
      const purged = (deleted.raw as ObjectLiteral[]).map((row) =>
        manager.create<ObjectLiteral, ObjectLiteral>(metadata.target, rowAsEntity(metadata, row)),
      );
      const caller = auditCaller('retention');
      await recordAudit(
        manager,
        purged.map((before) => ({ action: 'delete', target: metadata.target, before, caller })),
      );
      return purged.length;
    });
  }

  /** The entities whose deletes are soft: those retention purges. */
  softDeleting(): EntityMetadata[] {
    return this.dataSource.entityMetadatas.filter((metadata) => metadata.deleteDateColumn !== undefined);
  }

  private underLock(work: (manager: EntityManager) => Promise<number>): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const [{ locked }] = await manager.query<Array<{ locked: boolean }>>(
        'SELECT pg_try_advisory_xact_lock($1) AS locked',
        [RETENTION_LOCK_KEY],
      );
      return locked ? work(manager) : 0;
    });
  }
}

/** A row as `RETURNING *` gives it (by column name), as its entity's properties. */
function rowAsEntity(metadata: EntityMetadata, row: ObjectLiteral): ObjectLiteral {
  return Object.fromEntries(
    metadata.columns
      .filter((column) => column.databaseName in row)
      .map((column) => [column.propertyPath, row[column.databaseName] as unknown]),
  );
}
