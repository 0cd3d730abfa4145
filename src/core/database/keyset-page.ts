import { BadRequestException } from '@nestjs/common';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

export interface KeysetPageOptions {
  /**
   * The properties the rows are sorted by, ascending: not null, the last one
   * unique (the primary key), so that every row has one place. An index on
   * the same columns in the same order, after the query's equality filters,
   * finds each page's start directly, however deep.
   */
  readonly orderBy: readonly string[];
  /** Where the previous page ended: its `next` (nothing for the first page). */
  readonly after?: readonly unknown[];
  readonly limit: number;
}

export interface KeysetPage<E> {
  readonly items: E[];
  /** The sort values of the page's last row, when more rows follow: the next page's `after`. */
  readonly next?: unknown[];
}

/**
 * A page of the query's rows in `orderBy` order, after the row `after`
 * names (keyset pagination): `WHERE (name, id) > (:name, :id) ORDER BY name,
 * id LIMIT n`, which costs the same on every page, where an `OFFSET` reads
 * and throws away every row before the page.
 *
 * ```ts
 * const query = manager.createQueryBuilder(Plant, 'plant').where('plant.gardenId = :gardenId', { gardenId });
 * const page = await keysetPage(query, { orderBy: ['name', 'id'], after: decodeCursor(cursor, 2), limit: 20 });
 * // page.next, when set, is the next page's `after`: encodeCursor(page.next) in its link
 * ```
 */
export async function keysetPage<E extends ObjectLiteral>(
  query: SelectQueryBuilder<E>,
  { orderBy, after, limit }: KeysetPageOptions,
): Promise<KeysetPage<E>> {
  const columns = orderBy.map((property) => `${query.alias}.${property}`);
  if (after !== undefined) {
    if (after.length !== orderBy.length) {
      throw new Error(`A keyset page after ${after.length} values, sorted by ${orderBy.length}`);
    }
    const names = after.map((_, index) => `keysetAfter${index}`);
    query.andWhere(
      `(${columns.join(', ')}) > (${names.map((name) => `:${name}`).join(', ')})`,
      Object.fromEntries(names.map((name, index) => [name, after[index]])),
    );
  }
  query.orderBy(columns[0], 'ASC');
  for (const column of columns.slice(1)) {
    query.addOrderBy(column, 'ASC');
  }
  const rows = await query.limit(limit + 1).getMany();
  if (rows.length <= limit) {
    return { items: rows };
  }
  const items = rows.slice(0, limit);
  const last = items[limit - 1];
  return { items, next: orderBy.map((property) => last[property] as unknown) };
}

/** A page's `next` as one opaque query parameter (base64url JSON), for a `Link`. */
export function encodeCursor(values: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

/**
 * The values `encodeCursor` made, `length` of them; a cursor this service
 * did not make answers 400. The values go to PostgreSQL as parameters, which
 * refuses one of the wrong type with 400 as well.
 */
export function decodeCursor(cursor: string, length: number): unknown[] {
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    values = undefined;
  }
  if (
    !Array.isArray(values) ||
    values.length !== length ||
    !values.every((value) => typeof value === 'string' || typeof value === 'number')
  ) {
    throw new BadRequestException('The cursor is not one of this service’s next-page links');
  }
  return values;
}
