import type {
  EntityManager,
  EntityTarget,
  FindOptionsWhere,
  ObjectLiteral,
  QueryDeepPartialEntity,
} from 'typeorm';

import { PreconditionFailedError } from '../errors/domain-error.js';

/** The versions the request's `If-Match` names (`@IfMatch()`); none matches no row. */
export interface IfMatch {
  readonly versions: readonly number[];
}

/**
 * Updates the row if it is at one of the versions `If-Match` names (any without one); `null` when there
 * is no row, `PreconditionFailedError` at another version. The check sits in the `UPDATE`'s own
 * `WHERE`, which PostgreSQL evaluates again on a row it waited for, so of two writers with one
 * `If-Match` only one wins. Without changes nothing changes, not even the version.
 */
export async function updateIfMatch<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  where: FindOptionsWhere<E>,
  changes: QueryDeepPartialEntity<E>,
  ifMatch?: IfMatch,
): Promise<E | null> {
  if (Object.keys(changes).length === 0) {
    const row = await manager.findOneBy(target, where);
    if (row && ifMatch && !ifMatch.versions.includes(versionOf(manager, target, row))) {
      throw new PreconditionFailedError();
    }
    return row;
  }
  const query = manager.createQueryBuilder().update(target).set(changes);
  return changedRow(manager, target, where, ifMatch, query);
}

/** Deletes as `updateIfMatch` updates, the `DELETE` checking the version; answers the row deleted. */
export function deleteIfMatch<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  where: FindOptionsWhere<E>,
  ifMatch?: IfMatch,
): Promise<E | null> {
  return changedRow(manager, target, where, ifMatch, manager.createQueryBuilder().delete().from(target));
}

interface ChangeQuery {
  where(where: ObjectLiteral): this;
  andWhere(condition: string, parameters: ObjectLiteral): this;
  returning(columns: string): this;
  execute(): Promise<{ raw: unknown }>;
}

async function changedRow<E extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<E>,
  where: FindOptionsWhere<E>,
  ifMatch: IfMatch | undefined,
  query: ChangeQuery,
): Promise<E | null> {
  if (ifMatch?.versions.length === 0) {
    return absentOrStale(manager, target, where);
  }
  query.where(where);
  if (ifMatch) {
    const version = versionColumn(manager, target).databaseName;
    query.andWhere(`"${version}" IN (:...ifMatchVersions)`, { ifMatchVersions: ifMatch.versions });
  }
  const { raw } = await query.returning('*').execute();
  const [row] = raw as ObjectLiteral[];
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
