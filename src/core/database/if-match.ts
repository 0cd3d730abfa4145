import {
  type EntityManager,
  type EntityTarget,
  type FindOneOptions,
  type FindOptionsWhere,
  IsNull,
  Not,
  type ObjectLiteral,
  type QueryDeepPartialEntity,
} from 'typeorm';

import { recordAudit } from '../audit/audit-trail.js';
import { type DomainError, PreconditionFailedError, VersionExhaustedError } from '../errors/domain-error.js';

/**
 * The preconditions of a change (`@IfMatch()`): the versions `If-Match` names (none matches no row);
 * without `If-Match`, the time `If-Unmodified-Since` gives, checked against the entity's
 * `@UpdateDateColumn()` to the second (RFC 9110, section 13.1.4).
 */
export interface IfMatch {
  readonly versions?: readonly number[];
  readonly unmodifiedSince?: Date;
}

/**
 * The largest version an `integer` version column holds. A record there can no longer change: its
 * changes answer 409 rather than fail in PostgreSQL (`version + 1` is out of range).
 */
export const LAST_VERSION = 2 ** 31 - 1;

/**
 * Why a row, read under a lock for this change, must not change as asked: it is not at a version
 * `If-Match` names (412), or a change would count its version past `LAST_VERSION` (409).
 */
export function checkIfMatch<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  row: E,
  ifMatch: IfMatch | undefined,
  changing = true,
): DomainError | undefined {
  const metadata = manager.connection.getMetadata(target);
  const version = versionOf(manager, target, row);
  if (ifMatch?.versions && !ifMatch.versions.includes(version)) {
    return new PreconditionFailedError();
  }
  const updatedAt = metadata.updateDateColumn?.getEntityValue(row) as Date | undefined;
  if (ifMatch?.unmodifiedSince && updatedAt && wholeSeconds(updatedAt) > ifMatch.unmodifiedSince.getTime()) {
    return new PreconditionFailedError(
      'The record has changed since the time If-Unmodified-Since gives; read it again for its Last-Modified',
    );
  }
  return changing && version >= LAST_VERSION ? new VersionExhaustedError() : undefined;
}

/** A time as `Last-Modified` says it: to the second below. */
export function wholeSeconds(time: Date): number {
  return Math.floor(time.getTime() / 1000) * 1000;
}

/**
 * Updates the row if it is at one of the versions `If-Match` names (any without one); `null` when there
 * is no row, `PreconditionFailedError` at another version. The row is read first under a lock (`FOR
 * UPDATE`, so in the caller's transaction) which a second writer waits for, so of two writers with
 * one `If-Match` only one wins. Without changes nothing changes, not even the version. The change of
 * an `@Audited()` entity is recorded in the audit trail, in the same transaction.
 */
export async function updateIfMatch<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  where: FindOptionsWhere<E>,
  changes: QueryDeepPartialEntity<E>,
  ifMatch?: IfMatch,
): Promise<E | null> {
  const changing = Object.keys(changes).length > 0;
  const row = await lockedForChange(manager, target, { where }, ifMatch, changing);
  if (!row || !changing) {
    return row;
  }
  const updated = await manager
    .createQueryBuilder()
    .update(target)
    .set(changes)
    .where(where)
    .returning('*')
    .execute();
  const after = entityOf(manager, target, (updated.raw as ObjectLiteral[])[0]);
  await recordAudit(manager, [{ action: 'update', target, before: row, after }]);
  return after;
}

/**
 * Deletes the row if it is at one of the versions `If-Match` names, as `updateIfMatch` changes it:
 * read first `FOR UPDATE` in the caller's transaction, then deleted, and recorded in the audit trail
 * if its entity is `@Audited()`. Answers the row as it was, `null` when there is none,
 * `PreconditionFailedError` at another version.
 */
export async function deleteIfMatch<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  where: FindOptionsWhere<E>,
  ifMatch?: IfMatch,
): Promise<E | null> {
  const row = await lockedForChange(manager, target, { where }, ifMatch, false);
  if (!row) {
    return null;
  }
  await manager.createQueryBuilder().delete().from(target).where(where).execute();
  await recordAudit(manager, [{ action: 'delete', target, before: row }]);
  return row;
}

/**
 * Soft-deletes the row (TypeORM's `@DeleteDateColumn()`) as `deleteIfMatch` deletes it: locked, checked,
 * then hidden from every read but `withDeleted`, its version counted up, and recorded in the audit
 * trail as a delete. Answers the row as it is now, `null` when there is none (or it is deleted already).
 */
export async function softDeleteIfMatch<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  where: FindOptionsWhere<E>,
  ifMatch?: IfMatch,
): Promise<E | null> {
  const row = await lockedForChange(manager, target, { where }, ifMatch, true);
  if (!row) {
    return null;
  }
  const deleted = await manager
    .createQueryBuilder()
    .softDelete()
    .from(target)
    .where(where)
    .returning('*')
    .execute();
  await recordAudit(manager, [{ action: 'delete', target, before: row }]);
  return entityOf(manager, target, (deleted.raw as ObjectLiteral[])[0]);
}

/**
 * Brings a soft-deleted row back, checked against `If-Match` as a change is; answers it as it is now,
 * recorded in the audit trail as a restore; `null` when no deleted row matches.
 */
export async function restoreIfMatch<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  where: FindOptionsWhere<E>,
  ifMatch?: IfMatch,
): Promise<E | null> {
  const deleteDate = manager.connection.getMetadata(target).deleteDateColumn;
  if (!deleteDate) {
    throw new Error(
      `${manager.connection.getMetadata(target).name} has no @DeleteDateColumn() to restore by`,
    );
  }
  const row = await lockedForChange(
    manager,
    target,
    { where: { ...where, [deleteDate.propertyName]: Not(IsNull()) }, withDeleted: true },
    ifMatch,
    true,
  );
  if (!row) {
    return null;
  }
  const restored = await manager
    .createQueryBuilder()
    .restore()
    .from(target)
    .where(where)
    .returning('*')
    .execute();
  const after = entityOf(manager, target, (restored.raw as ObjectLiteral[])[0]);
  await recordAudit(manager, [{ action: 'restore', target, after }]);
  return after;
}

/** The row read `FOR UPDATE` (so in the caller's transaction) for a change, checked against `If-Match`. */
async function lockedForChange<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  options: FindOneOptions<E>,
  ifMatch: IfMatch | undefined,
  changing: boolean,
): Promise<E | null> {
  const row = await manager.findOne(target, { ...options, lock: { mode: 'pessimistic_write' } });
  const refusal = row && checkIfMatch(manager, target, row, ifMatch, changing);
  if (refusal) {
    throw refusal;
  }
  return row;
}

/** A row as `RETURNING *` gives it (by column name), as the entity it stores. */
function entityOf<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  row: ObjectLiteral,
): E {
  const metadata = manager.connection.getMetadata(target);
  const entity = metadata.create() as E;
  for (const column of metadata.columns) {
    if (column.databaseName in row) {
      column.setEntityValue(
        entity,
        manager.connection.driver.prepareHydratedValue(row[column.databaseName], column),
      );
    }
  }
  return entity;
}

function versionColumn(manager: EntityManager, target: EntityTarget<ObjectLiteral>) {
  const metadata = manager.connection.getMetadata(target);
  if (!metadata.versionColumn) {
    throw new Error(`${metadata.name} has no @VersionColumn() to check If-Match against`);
  }
  return metadata.versionColumn;
}

function versionOf<E extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<E>, row: E): number {
  return versionColumn(manager, target).getEntityValue(row) as number;
}
