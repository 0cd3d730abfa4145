import { BadRequestException } from '@nestjs/common';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

export interface KeysetPageOptions {
  /** Sorted ascending; not null, and the last one unique (the primary key) so that every row has one place. */
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
 * Keyset pagination: every page costs the same, where an `OFFSET` reads every row before it
 * (docs/adding-a-resource.md#3-what-typeorm-lacks-the-platforms-helpers).
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

/** A cursor this service did not make answers 400; PostgreSQL refuses a mistyped value with 400 too. */
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
