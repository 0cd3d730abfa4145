import type { EntityManager, EntityMetadata, ObjectLiteral } from 'typeorm';

import type { FilterParameter, ListField } from './list-declaration.js';
import {
  buildRanges,
  filterCondition,
  filtered,
  FIRST_PAGE,
  type ListRows,
  type ListScope,
  orderByOf,
  pageOf,
  rangesAfter,
  type ValueOf,
} from './list-page.js';
import type { ListRequest } from './list-request.js';

/** TypeORM's metadata of a column, which its package's root does not export by name. */
type ColumnMetadata = EntityMetadata['columns'][number];

/**
 * Many pages of one list in one statement. Pages of one shape (the same sort, the same filters, a
 * cursor with the same NULLs, the same limit) differ only in their values, so a batch reads them all
 * at once: each request's values are a row of `unnest($1, $2, …)`, and the page's own query, built
 * by the query builder with those columns where its parameters were, is a `LATERAL` subquery run
 * once per row, from its index as it would run alone. On pages the round trip to PostgreSQL costs
 * more than the statement (docs/performance.md#batched-reads-and-writes-of-plants).
 *
 * Only the shapes whose conditions an index serves with a value known at run time are batched:
 * `contains` needs its pattern when the statement is planned, and so does `prefix`, unless its
 * column orders text by code point ("C"), where the prefix is given as a range as well; `in` has a
 * number of values of its own, a scope adds parameters, and a nullable first key's cursor needs two
 * ranges.
 * The rows are hydrated as `getMany()` does, from the entity's metadata; an entity with eager
 * relations or `afterLoad` listeners is never batched, so that its rows load exactly as TypeORM loads
 * them. The others are read alone by `listRows`.
 */
export class ListBatch<E extends ObjectLiteral> {
  private readonly sql: string;
  /** The parameters each request gives a row of `start`, in the order of its columns. */
  private readonly names: readonly string[];
  private readonly columns: readonly ColumnMetadata[];

  /** Built from the first request of its shape, on its manager: the statement is the same on any. */
  constructor(
    manager: EntityManager,
    private readonly metadata: EntityMetadata,
    shape: ListRequest<E>,
  ) {
    const { driver } = manager.connection;
    const names: string[] = [];
    const types: string[] = [];
    const valueOf: ValueOf = (name, field, pattern) => {
      if (!names.includes(name)) {
        names.push(name);
        types.push(pattern ? 'text' : driver.normalizeType(columnOf(metadata, field)));
      }
      return `"start".${driver.escape(name)}`;
    };
    this.columns = metadata.columns.filter((column) => column.isSelect && !column.isVirtual);
    const { alias } = shape.list;
    const query = filtered(manager, shape, undefined, valueOf)
      .select([])
      .orderBy({ ...orderByOf(shape) })
      .limit(shape.limit + 1);
    for (const column of this.columns) {
      query.addSelect(`${alias}.${column.propertyPath}`, column.databaseName);
    }
    if (shape.after !== undefined) {
      const [range] = buildRanges(
        shape.order,
        shape.after.map((value) => value === null),
        valueOf,
      );
      query.andWhere(range);
    }
    const starts =
      names.length === 0
        ? `generate_series(1, $1::integer) AS "start"("page")`
        : `unnest(${types.map((type, index) => `$${index + 1}::${type}[]`).join(', ')}) WITH ORDINALITY AS "start"(${[...names, 'page'].map((name) => driver.escape(name)).join(', ')})`;
    const order = shape.order.keys.map(
      ({ field, descending }) =>
        `"rows".${driver.escape(columnOf(metadata, field).databaseName)} ${descending ? 'DESC' : 'ASC'}`,
    );
    this.sql =
      `SELECT "start"."page" AS "list_page", "rows".* FROM ${starts} ` +
      `CROSS JOIN LATERAL (${query.getQuery()}) AS "rows" ORDER BY "start"."page", ${order.join(', ')}`;
    this.names = names;
  }

  /** The pages of requests of this batch's shape, in order, read on `manager`. */
  async rows(manager: EntityManager, requests: ReadonlyArray<ListRequest<E>>): Promise<Array<ListRows<E>>> {
    const values = requests.map(parametersOf);
    const parameters =
      this.names.length === 0
        ? [requests.length]
        : this.names.map((name) => values.map((value) => value[name]));
    const raw = await manager.query<Array<Record<string, unknown>>>(this.sql, parameters);
    const pages = requests.map((): E[] => []);
    for (const row of raw) {
      pages[Number(row.list_page) - 1].push(this.hydrate(row));
    }
    return pages.map((items, index) => pageOf(requests[index].order, items, requests[index].limit));
  }

  /** As `getMany()` hydrates a row: each selected column's value, prepared by the driver. */
  private hydrate(row: Record<string, unknown>): E {
    const { driver } = this.metadata.connection;
    const entity = this.metadata.create(undefined, { fromDeserializer: true }) as E;
    for (const column of this.columns) {
      const value = row[column.databaseName];
      if (value !== undefined) {
        column.setEntityValue(entity, driver.prepareHydratedValue(value, column));
      }
    }
    return entity;
  }
}

/**
 * The shape of a request's page, the key of its batch; `undefined` when its page is read alone. Two
 * requests of one shape are read by one statement.
 */
export function shapeOf<E extends ObjectLiteral>(
  metadata: EntityMetadata,
  subscribers: ReadonlyArray<{ afterLoad?: unknown; listenTo?: () => unknown }>,
  request: ListRequest<E>,
  scope?: ListScope<E>,
): string | undefined {
  const { order, filters, after, limit, deleted } = request;
  if (
    scope !== undefined ||
    filters.some(({ parameter, value }) => !isBatched(metadata, parameter, value)) ||
    (after !== undefined && rangesAfter(order, after).ranges.length !== 1) ||
    !loadsPlainly(metadata, subscribers)
  ) {
    return undefined;
  }
  const nulls = after?.map((value) => (value === null ? 'n' : 'v')).join('') ?? '';
  const conditions = filters
    .map(({ parameter, value }) =>
      parameter.operator === 'null' ? `${parameter.index}=${String(value)}` : parameter.index,
    )
    .join(',');
  return `${order.text}|${nulls}|${conditions}|${limit}|${deleted}`;
}

/** Comparisons an index serves with a value known only when the statement runs. */
const BATCHED_OPERATORS = new Set(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'null']);
/** Collations that order text by code point, as `prefixRange` assumes. */
const CODE_POINT_COLLATIONS = new Set(['C', 'POSIX']);

/** A prefix is batched as a range of its column, which code points order only in a "C" column. */
function isBatched(metadata: EntityMetadata, parameter: FilterParameter, value: unknown): boolean {
  if (parameter.operator === 'prefix') {
    const { collation } = columnOf(metadata, parameter.field);
    return (
      collation !== undefined &&
      CODE_POINT_COLLATIONS.has(collation) &&
      successorOf(value as string) !== undefined
    );
  }
  return BATCHED_OPERATORS.has(parameter.operator);
}

/**
 * The first text after every text that starts with `prefix`, in code point order: its last code
 * point counted up (past the surrogates, which UTF-8 does not hold); `undefined` when none is.
 */
export function successorOf(prefix: string): string | undefined {
  const codePoints = [...prefix].map((character) => character.codePointAt(0)!);
  while (codePoints.length > 0) {
    const last = codePoints.pop()! + 1;
    if (last <= MAX_CODE_POINT) {
      return String.fromCodePoint(...codePoints, last === SURROGATES_FROM ? SURROGATES_BELOW : last);
    }
  }
  return undefined;
}

const MAX_CODE_POINT = 0x10ffff;
const SURROGATES_FROM = 0xd800;
const SURROGATES_BELOW = 0xe000;

function loadsPlainly(
  metadata: EntityMetadata,
  subscribers: ReadonlyArray<{ afterLoad?: unknown; listenTo?: () => unknown }>,
): boolean {
  return (
    metadata.eagerRelations.length === 0 &&
    metadata.afterLoadListeners.length === 0 &&
    !subscribers.some(
      (subscriber) =>
        typeof subscriber.afterLoad === 'function' &&
        (subscriber.listenTo === undefined || metadata.target === subscriber.listenTo()),
    )
  );
}

/** A request's parameters, named as the query builder would name them. */
function parametersOf(request: ListRequest): Record<string, unknown> {
  const parameters: Record<string, unknown> = {
    ...(request.after === undefined ? FIRST_PAGE : rangesAfter(request.order, request.after)).parameters,
  };
  for (const filter of request.filters) {
    Object.assign(parameters, filterCondition(filter)[1]);
    if (filter.parameter.operator === 'prefix') {
      const name = `listFilter${filter.parameter.index}`;
      parameters[`${name}From`] = filter.value;
      parameters[`${name}Below`] = successorOf(filter.value as string);
    }
  }
  return parameters;
}

function columnOf(metadata: EntityMetadata, field: ListField): ColumnMetadata {
  return metadata.findColumnWithPropertyPath(field.property)!;
}
