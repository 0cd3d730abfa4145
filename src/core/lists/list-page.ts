import type { EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';

import type { FilterParameter, ListField } from './list-declaration.js';
import type { AppliedFilter, ListRequest, SortOrder, SortValue } from './list-request.js';

/** A page of a list: its rows in order, and the sort values of the last one when more follow. */
export interface ListRows<E> {
  readonly items: E[];
  readonly next?: readonly SortValue[];
}

/** Narrows a list to part of its table (a garden's shrubs), before its filters: the count honours it too. */
export type ListScope<E extends ObjectLiteral> = (query: SelectQueryBuilder<E>) => SelectQueryBuilder<E>;

/**
 * The list's rows, filtered, in the request's order, from where it starts, on the caller's manager
 * (a replica's, say). A generalised keyset page: every sort key may run either way and be nullable,
 * sorted as PostgreSQL sorts it (NULLs last ascending, first descending), so that the pages, put
 * end to end, are PostgreSQL's own `ORDER BY` of the keys. The rows after a position are at most
 * two index ranges (a nullable first key's values, then its NULLs): one statement each, the second
 * only when the first leaves the page short. Each range starts with a bound on the first key alone,
 * so its index finds the start directly however deep the page is.
 */
export async function listRows<E extends ObjectLiteral>(
  manager: EntityManager,
  request: ListRequest<E>,
  scope?: ListScope<E>,
): Promise<ListRows<E>> {
  const { order, limit, after } = request;
  const { ranges, parameters } = after === undefined ? FIRST_PAGE : rangesAfter(order, after);
  const items: E[] = [];
  for (const range of ranges) {
    // A copy: the query builder keeps the object it is given as its own.
    const query = filtered(manager, request, scope).orderBy({ ...orderByOf(request) });
    if (range !== '') {
      query.andWhere(range, parameters);
    }
    items.push(...(await query.limit(limit + 1 - items.length).getMany()));
    if (items.length > limit) {
      break;
    }
  }
  return pageOf(order, items, limit);
}

/** The page of `items`, read `limit + 1` at most: the one beyond the page says that more follow. */
export function pageOf<E extends ObjectLiteral>(order: SortOrder, items: E[], limit: number): ListRows<E> {
  if (items.length <= limit) {
    return { items };
  }
  items.length = limit;
  const last = items[limit - 1];
  return { items, next: order.keys.map(({ field }) => last[field.property] as SortValue) };
}

/** The list's filtered rows, unordered: what a page reads from, and what a count counts. */
export function filtered<E extends ObjectLiteral>(
  manager: EntityManager,
  request: ListRequest<E>,
  scope?: ListScope<E>,
  valueOf?: ValueOf,
): SelectQueryBuilder<E> {
  const { list } = request;
  let query = manager.createQueryBuilder<E>(list.entity, list.alias);
  if (request.deleted && list.deleteDate !== undefined) {
    query.withDeleted().andWhere(`${list.alias}.${list.deleteDate} IS NOT NULL`);
  }
  if (scope) {
    query = scope(query);
  }
  for (const filter of request.filters) {
    const [condition, parameters] = filterCondition(filter, valueOf);
    query.andWhere(condition, valueOf ? {} : parameters);
  }
  return query;
}

/**
 * How a condition names a value: by default a parameter of the query builder (`:listFilter0`);
 * a batch of pages (list-batch.ts) names a column of the row each page starts from instead.
 * `pattern` marks a `LIKE` pattern, which is text whatever the field.
 */
export type ValueOf = (name: string, field: ListField, pattern?: boolean) => string;

const asParameter: ValueOf = (name) => `:${name}`;

export const FIRST_PAGE: Ranges = { ranges: [''], parameters: {} };

const orderBys = new WeakMap<SortOrder, Record<string, 'ASC' | 'DESC'>>();

export function orderByOf({ order }: ListRequest): Record<string, 'ASC' | 'DESC'> {
  let orderBy = orderBys.get(order);
  if (!orderBy) {
    orderBy = Object.fromEntries(
      order.keys.map(({ field, descending }) => [field.path, descending ? 'DESC' : 'ASC']),
    );
    orderBys.set(order, orderBy);
  }
  return orderBy;
}

/** `LIKE` takes `%`, `_` and `\` as its own: a value's are escaped, so that they match themselves. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}

const conditions = new WeakMap<FilterParameter, string>();

/** A filter's condition and its parameter; the condition is built once per filter parameter, unless `valueOf` is given. */
export function filterCondition(
  { parameter, value }: AppliedFilter,
  valueOf?: ValueOf,
): [string, Record<string, unknown>] {
  const name = `listFilter${parameter.index}`;
  const { path } = parameter.field;
  const ref = valueOf ?? asParameter;
  const condition = (build: () => string) => (valueOf ? build() : conditionOf(parameter, build));
  switch (parameter.operator) {
    case 'null':
      return [`${path} ${value === true ? 'IS NULL' : 'IS NOT NULL'}`, {}];
    case 'prefix':
      if (valueOf) {
        // A batch's pattern is known only as the statement runs, too late for the planner to find
        // its range in the index: the range is given too, as code points order a "C" column.
        return [
          `${path} LIKE ${ref(name, parameter.field, true)} AND ${path} >= ${ref(`${name}From`, parameter.field)} ` +
            `AND ${path} < ${ref(`${name}Below`, parameter.field)}`,
          {},
        ];
      }
      return [
        condition(() => `${path} LIKE ${ref(name, parameter.field, true)}`),
        { [name]: `${escapeLike(value as string)}%` },
      ];
    case 'contains':
      // Case folds as the database's default collation does (the column's "C" folds A-Z only); the
      // trigram index is built in that collation to serve it.
      return [
        condition(() => `${path} COLLATE "default" ILIKE ${ref(name, parameter.field, true)}`),
        { [name]: `%${escapeLike(value as string)}%` },
      ];
    case 'in':
      return [condition(() => `${path} IN (:...${name})`), { [name]: (value as unknown[]).map(sqlValue) }];
    default:
      return [
        condition(
          () => `${path} ${COMPARISONS[parameter.operator](parameter)} ${ref(name, parameter.field)}`,
        ),
        { [name]: sqlValue(value) },
      ];
  }
}

const COMPARISONS: Readonly<Record<string, (parameter: FilterParameter) => string>> = {
  eq: () => '=',
  // Those without a value are not equal to it either.
  ne: ({ field }) => (field.nullable ? 'IS DISTINCT FROM' : '<>'),
  lt: () => '<',
  lte: () => '<=',
  gt: () => '>',
  gte: () => '>=',
};

function conditionOf(parameter: FilterParameter, build: () => string): string {
  let condition = conditions.get(parameter);
  if (condition === undefined) {
    condition = build();
    conditions.set(parameter, condition);
  }
  return condition;
}

/** An int64 as its digits, as PostgreSQL takes a `bigint` parameter without loss. */
function sqlValue(value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

export interface Ranges {
  /** One condition per index range, in order; `''` for no condition. */
  readonly ranges: readonly string[];
  readonly parameters: Record<string, unknown>;
}

const rangeTexts = new WeakMap<SortOrder, Map<string, readonly string[]>>();

/** The rows after `values` in `order`: their index ranges' conditions, built once per order and NULL pattern. */
export function rangesAfter(order: SortOrder, values: readonly SortValue[]): Ranges {
  const parameters: Record<string, unknown> = {};
  values.forEach((value, index) => {
    if (value !== null) {
      parameters[`listAfter${index}`] = value;
    }
  });
  const pattern = values.map((value) => (value === null ? 'n' : 'v')).join('');
  let byPattern = rangeTexts.get(order);
  if (!byPattern) {
    byPattern = new Map();
    rangeTexts.set(order, byPattern);
  }
  let ranges = byPattern.get(pattern);
  if (!ranges) {
    ranges = buildRanges(
      order,
      values.map((value) => value === null),
    );
    byPattern.set(pattern, ranges);
  }
  return { ranges, parameters };
}

export function buildRanges(
  order: SortOrder,
  isNull: readonly boolean[],
  valueOf: ValueOf = asParameter,
): readonly string[] {
  const key = (index: number) => {
    const { field, descending } = order.keys[index];
    return {
      path: field.path,
      descending,
      nullable: field.nullable,
      value: isNull[index] ? '' : valueOf(`listAfter${index}`, field),
      isNull: isNull[index],
    };
  };
  /** Key `index` strictly after the cursor's value, in its direction; `undefined` when nothing is. */
  const beyond = (index: number): string | undefined => {
    const { path, descending, nullable, value, isNull: valueIsNull } = key(index);
    if (valueIsNull) {
      return descending ? `${path} IS NOT NULL` : undefined;
    }
    if (descending) {
      return `${path} < ${value}`;
    }
    return nullable ? `(${path} > ${value} OR ${path} IS NULL)` : `${path} > ${value}`;
  };
  const same = (index: number): string => {
    const { path, value, isNull: valueIsNull } = key(index);
    return valueIsNull ? `${path} IS NULL` : `${path} = ${value}`;
  };
  /** Rows whose keys before `index` equal the cursor's, and after it from `index` on. */
  const after = (index: number): string | undefined => {
    const strictly = beyond(index);
    if (index === order.keys.length - 1) {
      return strictly;
    }
    const rest = after(index + 1);
    const tied = rest === undefined ? undefined : `${same(index)} AND ${rest}`;
    if (strictly === undefined) {
      return tied;
    }
    return tied === undefined ? strictly : `(${strictly} OR (${tied}))`;
  };
  if (order.keys.length === 1) {
    return [after(0)!];
  }
  const first = key(0);
  const rest = after(1);
  const tied = rest === undefined ? undefined : `${same(0)} AND ${rest}`;
  if (first.isNull) {
    // Among the NULLs: the rest of them; descending, every value follows.
    const nulls = tied ?? 'FALSE';
    return first.descending ? [nulls, `${first.path} IS NOT NULL`] : [nulls];
  }
  const bound = `${first.path} ${first.descending ? '<=' : '>='} ${first.value}`;
  const strictly = `${first.path} ${first.descending ? '<' : '>'} ${first.value}`;
  const values = `${bound} AND ${tied === undefined ? strictly : `(${strictly} OR (${tied}))`}`;
  return first.nullable && !first.descending ? [values, `${first.path} IS NULL`] : [values];
}
