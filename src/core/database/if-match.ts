import type {
  EntityManager,
  EntityTarget,
  FindOptionsWhere,
  ObjectLiteral,
  QueryDeepPartialEntity,
} from 'typeorm';

import { type DomainError, PreconditionFailedError, VersionExhaustedError } from '../errors/domain-error.js';

/** The versions the request's `If-Match` names (`@IfMatch()`); none matches no row. */
export interface IfMatch {
  readonly versions: readonly number[];
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
  const version = versionOf(manager, target, row);
  if (ifMatch && !ifMatch.versions.includes(version)) {
    return new PreconditionFailedError();
  }
  return changing && version >= LAST_VERSION ? new VersionExhaustedError() : undefined;
}

/**
 * Updates the row if it is at one of the versions `If-Match` names (any without one); `null` when there
 * is no row, `PreconditionFailedError` at another version. The row is read first under a lock (`FOR
 * UPDATE`, so in the caller's transaction) which a second writer waits for, so of two writers with
 * one `If-Match` only one wins. Without changes nothing changes, not even the version.
 */
export async function updateIfMatch<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  where: FindOptionsWhere<E>,
  changes: QueryDeepPartialEntity<E>,
  ifMatch?: IfMatch,
): Promise<E | null> {
  const changing = Object.keys(changes).length > 0;
  const row = await manager.findOne(target, { where, lock: { mode: 'pessimistic_write' } });
  if (!row) {
    return null;
  }
  const refusal = checkIfMatch(manager, target, row, ifMatch, changing);
  if (refusal) {
    throw refusal;
  }
  if (!changing) {
    return row;
  }
  const updated = await manager
    .createQueryBuilder()
    .update(target)
    .set(changes)
    .where(where)
    .returning('*')
    .execute();
  return entityOf(manager, target, (updated.raw as ObjectLiteral[])[0]);
}

/**
 * Deletes the row if it is at one of the versions `If-Match` names, the check in the `DELETE`'s own
 * `WHERE`, which PostgreSQL evaluates again on a row it waited for; answers the row deleted, `null`
 * when there is none, `PreconditionFailedError` at another version.
 */
export async function deleteIfMatch<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  where: FindOptionsWhere<E>,
  ifMatch?: IfMatch,
): Promise<E | null> {
  if (ifMatch?.versions.length === 0) {
    return absentOrStale(manager, target, where);
  }
  const query = manager.createQueryBuilder().delete().from(target).where(where);
  if (ifMatch) {
    const version = versionColumn(manager, target).databaseName;
    query.andWhere(`"${version}" IN (:...ifMatchVersions)`, { ifMatchVersions: ifMatch.versions });
  }
  const deleted = await query.returning('*').execute();
  const [row] = deleted.raw as ObjectLiteral[];
  return row ? entityOf(manager, target, row) : absentOrStale(manager, target, where);
}

/** Nothing was changed: `null` when there is no row, else its version did not match. */
async function absentOrStale<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  where: FindOptionsWhere<E>,
): Promise<null> {
  if (await manager.existsBy(target, where)) {
    throw new PreconditionFailedError();
  }
  return null;
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
