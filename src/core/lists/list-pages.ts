import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager, ObjectLiteral } from 'typeorm';

import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import { filtered, listRows, type ListRows, type ListScope } from './list-page.js';
import type { ListRequest } from './list-request.js';
import type { CountPreference } from './prefer.js';

/** A page and what it was asked for; with its count when one was. */
export interface ListPage<E> extends ListRows<E> {
  readonly request: ListRequest<E>;
  readonly count?: ListCount;
}

export interface ListCount {
  readonly total: number;
  /** What the total is: `estimated` also when an exact count ran out of time. */
  readonly applied: CountPreference;
}

/**
 * Pages of declared lists (`defineList`), counted when the client prefers (`Prefer: count=exact`).
 * It takes the caller's manager, so that a page is read where the caller reads: on a replica, through
 * a pooler.
 */
@Injectable()
export class ListPages {
  constructor(@Inject(databaseConfig.KEY) private readonly config: DatabaseConfig) {}

  async page<E extends ObjectLiteral>(
    manager: EntityManager,
    request: ListRequest<E>,
    count?: CountPreference,
    scope?: ListScope<E>,
  ): Promise<ListPage<E>> {
    const rows = await listRows(manager, request, scope);
    if (count === undefined) {
      return { ...rows, request };
    }
    return { ...rows, request, count: await this.count(manager, request, rows, count, scope) };
  }

  /**
   * The last page, its position known, counts itself. Otherwise an exact count is `count(*)` under a
   * statement timeout of its own (`LIST_COUNT_TIMEOUT_MS`), and the planner's estimate when it runs
   * out; an estimate is the planner's row estimate for the filtered query, never less than the rows
   * seen.
   */
  private async count<E extends ObjectLiteral>(
    manager: EntityManager,
    request: ListRequest<E>,
    rows: ListRows<E>,
    preference: CountPreference,
    scope?: ListScope<E>,
  ): Promise<ListCount> {
    const seen = (request.offset ?? 0) + rows.items.length;
    if (rows.next === undefined && request.offset !== undefined) {
      return { total: seen, applied: preference };
    }
    if (preference === 'exact') {
      const total = await this.exactCount(manager, request, scope);
      if (total !== undefined) {
        return { total, applied: 'exact' };
      }
    }
    const estimate = await estimatedCount(manager, request, scope);
    return { total: Math.max(estimate, seen + (rows.next === undefined ? 0 : 1)), applied: 'estimated' };
  }

  /** `undefined` when it ran out of time. */
  private async exactCount<E extends ObjectLiteral>(
    manager: EntityManager,
    request: ListRequest<E>,
    scope?: ListScope<E>,
  ): Promise<number | undefined> {
    try {
      return await manager.transaction(async (transaction) => {
        // SET LOCAL, with a parameter: it ends with the transaction, so a pooled connection keeps its own.
        await transaction.query(`SELECT set_config('statement_timeout', $1, true)`, [
          String(this.config.listCountTimeoutMs),
        ]);
        const counted = await filtered(transaction, request, scope)
          .select('COUNT(*)', 'total')
          .getRawOne<{ total: string }>();
        return Number(counted?.total ?? 0);
      });
    } catch (error) {
      // 57014 here is this count's own timeout, which must not read as an unavailable database (503).
      if (sqlStateOf(error) === '57014') {
        return undefined;
      }
      throw error;
    }
  }
}

/** The planner's estimate of the filtered rows: `EXPLAIN` plans the query without running it. */
async function estimatedCount<E extends ObjectLiteral>(
  manager: EntityManager,
  request: ListRequest<E>,
  scope?: ListScope<E>,
): Promise<number> {
  const [sql, parameters] = filtered(manager, request, scope).getQueryAndParameters();
  const [explained] = await manager.query<Array<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>>(
    `EXPLAIN (FORMAT JSON) ${sql}`,
    parameters,
  );
  return Math.round(explained['QUERY PLAN'][0].Plan['Plan Rows']);
}

function sqlStateOf(error: unknown): unknown {
  const { code, driverError } = error as { code?: unknown; driverError?: { code?: unknown } };
  return driverError?.code ?? code;
}
