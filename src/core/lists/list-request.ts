import { createHash } from 'node:crypto';

import { BadRequestException } from '@nestjs/common';

import { type Int64, int64ToString, isInt64 } from '../common/int64.js';
import { keyForMessage } from '../http/json.js';
import { isText } from '../validation/constraints.js';
import type { FilterParameter, ListDeclaration, ListField } from './list-declaration.js';

/** The query string of a list, as its `ListQueryDto` hands it over once validated. */
export interface ListQuery {
  readonly sort?: string;
  readonly limit?: number;
  readonly cursor?: string;
  readonly after?: Int64;
  /** Of a soft-deleting resource: its deleted records, in place of the others. */
  readonly deleted?: 'only';
  readonly [filter: string]: unknown;
}

/** A value of a sort key, as the entity holds it: an int64 as its digits, `null` where the column allows. */
export type SortValue = string | number | null;

export interface SortKey {
  readonly field: ListField;
  readonly descending: boolean;
}

/** A sort the declaration allows, its id last: parsed once per distinct `sort` and kept. */
export interface SortOrder {
  readonly keys: readonly SortKey[];
  /** The keys as `sort` writes them, the id included: `name,-id`. */
  readonly text: string;
  /** Ascending by id alone: the list's order without `sort`. */
  readonly isDefault: boolean;
}

export interface AppliedFilter {
  readonly parameter: FilterParameter;
  /** As validated: a string, an `Int64`, a number, a boolean (`null`), or a list of them (`in`). */
  readonly value: unknown;
}

/** What a page is asked for: checked against the declaration, its position decoded. */
export interface ListRequest<E = unknown> {
  readonly list: ListDeclaration<E>;
  readonly order: SortOrder;
  readonly filters: readonly AppliedFilter[];
  readonly limit: number;
  /** The sort values of the row the page starts after: a cursor's, or `after`'s id. */
  readonly after?: readonly SortValue[];
  /** The number of rows before the page, when known: 0 on a first page, a cursor's otherwise. */
  readonly offset?: number;
  /**
   * How the next page is linked: by `after=<id>`, as before sorting and filtering existed, for a
   * request in the default order whose filters are equalities; by a cursor otherwise.
   */
  readonly links: 'after' | 'cursor';
  readonly query: ListQuery;
  /** The deleted records of a soft-deleting resource, in place of the others (`deleted=only`). */
  readonly deleted: boolean;
}

const orders = new WeakMap<object, Map<string, SortOrder>>();
/** Distinct sorts kept per list: every valid one, in practice; a bound all the same. */
const MAX_KEPT_ORDERS = 1024;

/** The sort `text` names (`name,-id`), or why it names none: a sentence starting with `sort`. */
export function sortOrder<E>(list: ListDeclaration<E>, text: string): SortOrder | string {
  let kept = orders.get(list);
  if (!kept) {
    kept = new Map();
    orders.set(list, kept);
  }
  const known = kept.get(text);
  if (known) {
    return known;
  }
  const parsed = parseSort(list, text);
  if (typeof parsed !== 'string' && kept.size < MAX_KEPT_ORDERS) {
    kept.set(text, parsed);
  }
  return parsed;
}

function parseSort<E>(list: ListDeclaration<E>, text: string): SortOrder | string {
  const keys: SortKey[] = [];
  for (const name of text.split(',')) {
    const descending = name.startsWith('-');
    const property = descending ? name.slice(1) : name;
    if (property === '') {
      return 'sort must list fields separated by commas, each after a - to sort it descending: name,-id';
    }
    const field = list.sortable.find((candidate) => candidate.property === property);
    if (!field) {
      return (
        `sort cannot use ${keyForMessage(property)}: the sortable fields are ` +
        list.sortable.map((candidate) => candidate.property).join(', ')
      );
    }
    if (keys.some((key) => key.field === field)) {
      return `sort names ${property} twice`;
    }
    if (keys.at(-1)?.field === list.id) {
      return `sort must end with ${list.id.property}, which is unique: ${property} after it would never apply`;
    }
    keys.push({ field, descending });
  }
  const last = keys.at(-1)!;
  if (last.field !== list.id) {
    // The tie-breaker runs the way of the key before it, so that one index serves both.
    keys.push({ field: list.id, descending: last.descending });
  }
  return {
    keys,
    text: keys.map(({ field, descending }) => `${descending ? '-' : ''}${field.property}`).join(','),
    isDefault: keys.length === 1 && !keys[0].descending,
  };
}

/** The query, validated by its DTO, checked as a whole: its sort, its cursor and where it starts. */
export function listRequest<E>(list: ListDeclaration<E>, query: ListQuery): ListRequest<E> {
  const parsed = query.sort === undefined ? sortOrder(list, list.id.property) : sortOrder(list, query.sort);
  if (typeof parsed === 'string') {
    throw new BadRequestException(parsed);
  }
  const order = parsed;
  const filters: AppliedFilter[] = [];
  for (const parameter of list.filters) {
    const value = query[parameter.name];
    if (value !== undefined) {
      filters.push({ parameter, value });
    }
  }
  const limit = query.limit ?? list.defaultLimit;
  const links =
    query.sort === undefined &&
    query.cursor === undefined &&
    filters.every(({ parameter }) => parameter.operator === 'eq')
      ? 'after'
      : 'cursor';
  const deleted = query.deleted === 'only';
  const request = { list, order, filters, limit, links, query, deleted } as const;
  if (query.after !== undefined) {
    if (query.cursor !== undefined) {
      throw new BadRequestException('after and cursor cannot be sent together: send the cursor alone');
    }
    if (!order.isDefault) {
      throw new BadRequestException(
        `after pages in ${list.id.property} order only: with sort, follow the Link header's cursor`,
      );
    }
    return { ...request, after: [int64ToString(query.after)] };
  }
  if (query.cursor !== undefined) {
    const cursor = decodeCursor(query.cursor, order, listDigest(request));
    return { ...request, after: cursor.values, offset: cursor.offset };
  }
  return { ...request, offset: 0 };
}

/** The opaque `cursor` of the page after `values`, the last row's sort values. */
export function encodeListCursor(
  request: ListRequest,
  values: readonly SortValue[],
  offset?: number,
): string {
  const content: CursorContent = {
    k: values,
    d: listDigest(request),
    ...(offset === undefined ? {} : { o: offset }),
  };
  return Buffer.from(JSON.stringify(content)).toString('base64url');
}

/**
 * The longest cursor a page of this list links to: base64url of the JSON of every sortable field's
 * longest value (6 bytes a character at most, as `\u0001`), and of the offset and the digest.
 */
export function maxCursorLength<E>(list: ListDeclaration<E>): number {
  const json = list.sortable.reduce((total, field) => total + 6 * field.maxLength + 3, 64);
  return Math.ceil(json / 3) * 4;
}

/** base64url JSON: the sort values, the digest of the sort and filters, and the rows before the page. */
interface CursorContent {
  readonly k: readonly SortValue[];
  readonly d: string;
  readonly o?: number;
}

const NOT_A_CURSOR = "cursor is not one of this service's next-page links";

/** The cursor's values and offset, if it is a cursor of this list for this sort and these filters. */
function decodeCursor(
  cursor: string,
  order: SortOrder,
  digest: string,
): { values: SortValue[]; offset?: number } {
  let content: unknown;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new BadRequestException(NOT_A_CURSOR);
  }
  const { k: values, d: digestOf, o: offset } = (content ?? {}) as Partial<Record<string, unknown>>;
  if (typeof digestOf !== 'string') {
    throw new BadRequestException(NOT_A_CURSOR);
  }
  if (digestOf !== digest) {
    throw new BadRequestException(
      'cursor belongs to another sort or other filters: send it with the query of the Link it came in',
    );
  }
  if (
    !Array.isArray(values) ||
    values.length !== order.keys.length ||
    !values.every((value, index) => isSortValue(value, order.keys[index].field)) ||
    (offset !== undefined && !(typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0))
  ) {
    throw new BadRequestException(NOT_A_CURSOR);
  }
  return { values: values as SortValue[], offset };
}

/** A sort value a row of this field can hold: a cursor is the client's to send, so it is checked too. */
function isSortValue(value: unknown, field: ListField): boolean {
  if (value === null) {
    return field.nullable;
  }
  switch (field.kind) {
    case 'int64':
      return typeof value === 'string' && /^-?\d{1,19}$/.test(value) && isInt64(BigInt(value));
    case 'int32':
      return typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31;
    case 'text':
      return isText(value, { minLength: 0, maxLength: field.maxLength });
  }
}

/**
 * A short digest of the sort and the filters (not the limit): a cursor is for the query it came
 * with. The values of `in` count as a set.
 */
function listDigest(request: Pick<ListRequest, 'order' | 'filters' | 'deleted'>): string {
  const filters = request.filters.map(({ parameter, value }) => [parameter.name, canonical(value)]);
  return createHash('sha256')
    .update(JSON.stringify([request.order.text, filters, ...(request.deleted ? ['deleted'] : [])]))
    .digest()
    .subarray(0, 9)
    .toString('base64url');
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    return [...new Set(value.map((item) => String(canonical(item))))].sort();
  }
  return typeof value === 'bigint' ? value.toString() : value;
}

/** A filter's value as its query parameter writes it: one string, or one per value of `in`. */
export function queryValues(value: unknown): string[] {
  return Array.isArray(value) ? value.map((item) => String(item)) : [String(value)];
}
