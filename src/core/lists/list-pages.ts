import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, EntityManager, ObjectLiteral } from 'typeorm';

import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import { BatchLoader } from '../database/batch-loader.js';
import { isDatabaseUnavailableError } from '../database/database-errors.js';
import { ListBatch, shapeOf } from './list-batch.js';
import type { ListDeclaration } from './list-declaration.js';
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

/** A page asked for, and the manager of the caller, whose reads the batch's statement joins. */
interface PageAsked {
  readonly request: ListRequest<ObjectLiteral>;
  readonly manager: EntityManager;
}

type PageLoader = BatchLoader<PageAsked, ListRows<ObjectLiteral>>;

/** Fewer batches in flight make larger ones. */
const PAGES = {
  inFlight: 4,
  maxBatchSize: 64,
  unavailable: isDatabaseUnavailableError,
  span: 'list batch page',
};
/** Shapes batched per list: every one in use, in practice; a bound all the same. */
const MAX_SHAPES = 256;
/** Beyond a statement's own limit, a batch gets this long before the client hears 503. */
const DEADLINE_BEYOND_STATEMENT_TIMEOUT_MS = 500;

/**
 * Pages of declared lists (`defineList`), counted when the client prefers (`Prefer: count=exact`).
 * It takes the caller's manager, so that a page is read where the caller reads: on a replica, through
 * a pooler. Pages asked at once are read together when their shape allows (`ListBatch`).
 */
@Injectable()
export class ListPages {
  /** By data source, by list, by where it reads (the primary, a replica) and shape. */
  private readonly batches = new WeakMap<
    DataSource,
    Map<ListDeclaration<unknown>, Map<string, PageLoader>>
  >();

  constructor(@Inject(databaseConfig.KEY) private readonly config: DatabaseConfig) {}

  async page<E extends ObjectLiteral>(
    manager: EntityManager,
    request: ListRequest<E>,
    count?: CountPreference,
    scope?: ListScope<E>,
  ): Promise<ListPage<E>> {
    const loader = this.loaderOf(manager, request, scope);
    const rows = loader
      ? ((await loader.load({ request, manager })) as ListRows<E>)
      : await listRows(manager, request, scope);
    if (count === undefined) {
      return { ...rows, request };
    }
    return { ...rows, request, count: await this.count(manager, request, rows, count, scope) };
  }

  /**
   * The batch of the request's shape where the manager reads; `undefined` when its page is read
   * alone, as it is inside a transaction, whose reads must stay its own.
   */
  private loaderOf<E extends ObjectLiteral>(
    manager: EntityManager,
    request: ListRequest<E>,
    scope?: ListScope<E>,
  ): PageLoader | undefined {
    const { connection, queryRunner } = manager;
    if (queryRunner?.isTransactionActive) {
      return undefined;
    }
    const metadata = connection.getMetadata(request.list.entity);
    const shape = shapeOf(metadata, connection.subscribers, request, scope);
    if (shape === undefined) {
      return undefined;
    }
    let lists = this.batches.get(connection);
    if (!lists) {
      lists = new Map();
      this.batches.set(connection, lists);
    }
    let shapes = lists.get(request.list);
    if (!shapes) {
      shapes = new Map();
      lists.set(request.list, shapes);
    }
    const key = `${queryRunner?.getReplicationMode() ?? 'master'} ${shape}`;
    let loader = shapes.get(key);
    if (!loader && shapes.size < MAX_SHAPES) {
      const batch = new ListBatch<ObjectLiteral>(manager, metadata, request);
      // The first caller's manager: it waits for the batch, so its query runner is still its own.
      loader = new BatchLoader(
        (asked) =>
          batch.rows(
            asked[0].manager,
            asked.map(({ request: one }) => one),
          ),
        {
          ...PAGES,
          deadlineMs: this.config.statementTimeoutMs + DEADLINE_BEYOND_STATEMENT_TIMEOUT_MS,
        },
      );
      shapes.set(key, loader);
    }
    return loader;
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
