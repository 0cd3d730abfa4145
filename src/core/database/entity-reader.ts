import { createHash } from 'node:crypto';

import type { DataSource, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';

import { NaturalBatch } from './natural-batch.js';
import { postgresPool } from './postgres-pool.js';

/** A row as the reader answers it: the chosen properties, `bigint` columns as exact decimal text. */
export type ReadRow<E, K extends keyof E> = { [P in K]: E[P] };

export interface PageQuery<E> {
  /** Only rows whose primary key is greater than this (keyset pagination). */
  readonly after?: string;
  readonly limit: number;
  /** Equality filters on columns, by property name; an index should lead with them and end with the key. */
  readonly where?: Partial<Record<keyof E & string, string | number | boolean | null>>;
}

/**
 * Reads one entity's rows the fast way: one named (prepared) statement per
 * kind of read, on the pool TypeORM owns (the same connections, limits and
 * timeouts), with the column names taken from the entity's metadata, so that
 * the entity stays the schema's source of truth. No query builder, no
 * entity hydration: each row comes back as a plain object of the properties
 * asked for. Statements are built once and parsed once per connection.
 *
 * For reads by primary key and keyset pages, the two reads every resource
 * has. Anything else goes through TypeORM's repository as usual.
 */
export class EntityReader<E extends ObjectLiteral, K extends keyof E & string> {
  private readonly statements = new Map<string, { name: string; text: string }>();
  private readonly metadata: EntityMetadata;
  private readonly selectList: string;
  /** The same, of the rows a batch of pages reads (`p`). */
  private readonly pageSelectList: string;
  private readonly key: string;
  private readonly keyProperty: string;
  private readonly keyType: string;
  /** Reads by id that arrive together go as one statement (see NaturalBatch). */
  private readonly byId: NaturalBatch<string, ReadRow<E, K>>;
  /** Pages likewise, one batch per kind of page. */
  private readonly pages = new Map<string, NaturalBatch<string, Array<ReadRow<E, K>>>>();

  constructor(
    private readonly dataSource: DataSource,
    entity: EntityTarget<E>,
    private readonly properties: readonly K[],
  ) {
    this.metadata = dataSource.getMetadata(entity);
    const primary = this.metadata.primaryColumns;
    if (primary.length !== 1) {
      throw new Error(`${this.metadata.name}: EntityReader needs a single-column primary key`);
    }
    this.key = quote(primary[0].databaseName);
    this.keyProperty = primary[0].propertyName;
    this.keyType = this.typeOf(primary[0]);
    if (!properties.includes(this.keyProperty as K)) {
      throw new Error(`${this.metadata.name}: EntityReader must read the primary key, ${this.keyProperty}`);
    }
    this.byId = new NaturalBatch((ids) => this.findByIds(ids), { concurrency: 4, maxBatchSize: 256 });
    const selectList = (from: string) =>
      properties
        .map((property) => {
          const column = this.column(property);
          const name = from + quote(column.databaseName);
          // pg hands bigint over as text anyway; say so, so the row's type is what it is. (ORDER BY
          // names the table's column, as the alias would otherwise order the text.)
          return `${column.type === 'bigint' ? `${name}::text` : name} AS ${quote(property)}`;
        })
        .join(', ');
    this.selectList = selectList('');
    this.pageSelectList = selectList('p.');
  }

  /**
   * The row under this primary key (given as its canonical text: decimal
   * digits for a bigint), or undefined. Reads that arrive while others are
   * in flight are answered by one statement together.
   */
  findById(id: string): Promise<ReadRow<E, K> | undefined> {
    return this.byId.load(id);
  }

  private async findByIds(ids: string[]): Promise<ReadonlyMap<string, ReadRow<E, K>>> {
    const { rows } = await this.query(
      'by-ids',
      () => `SELECT ${this.selectList} FROM ${this.table} WHERE ${this.key} = ANY ($1::${this.keyType}[])`,
      [ids],
    );
    return new Map(rows.map((row) => [String(row[this.keyProperty as K]), row]));
  }

  /**
   * Up to `limit` rows in primary key order, after `after`, matching `where`.
   * Pages asked for while others are in flight are answered by one statement
   * together, as reads by id are: one index scan per page, each page its own
   * (see `findPages`).
   */
  async page({ after, limit, where = {} }: PageQuery<E>): Promise<Array<ReadRow<E, K>>> {
    const filters = Object.keys(where).sort() as Array<keyof E & string>;
    // The kind of page: its statement's name, and the batch it waits in.
    const kind = `pages-${filters.join('-')}${after === undefined ? '' : '-after'}`;
    let pages = this.pages.get(kind);
    if (!pages) {
      const withAfter = after !== undefined;
      pages = new NaturalBatch((keys) => this.findPages(kind, filters, withAfter, keys), {
        concurrency: 4,
        maxBatchSize: 64,
      });
      this.pages.set(kind, pages);
    }
    const values: PageValues = [...filters.map((property) => where[property] ?? null), after ?? null, limit];
    return (await pages.load(JSON.stringify(values))) ?? [];
  }

  /**
   * The pages of one kind (the same filters, with or without `after`), each
   * key a page's values as JSON: one statement, a keyset scan per page
   * (`LATERAL`), every page read in the same snapshot.
   */
  private async findPages(
    kind: string,
    filters: readonly string[],
    withAfter: boolean,
    keys: string[],
  ): Promise<ReadonlyMap<string, Array<ReadRow<E, K>>>> {
    const pages = keys.map((key) => JSON.parse(key) as PageValues);
    // One array per page value: each filter, then `after` (when the kind has one), then the limit.
    const arrays = filters.map((_, index) => pages.map((values) => values[index]));
    if (withAfter) {
      arrays.push(pages.map((values) => values[filters.length]));
    }
    arrays.push(pages.map((values) => values[filters.length + 1]));
    const { rows } = await this.query(
      kind,
      () => {
        const columns = filters.map((property) => this.column(property));
        const types = columns.map((column) => this.typeOf(column));
        const names = columns.map((_, index) => `f${index}`);
        const conditions = columns.map(
          (column, index) => `t.${quote(column.databaseName)} = r.${names[index]}`,
        );
        if (withAfter) {
          types.push(this.keyType);
          names.push('after');
          conditions.push(`t.${this.key} > r.after`);
        }
        types.push('int4');
        names.push('page_limit');
        return (
          `SELECT ${this.pageSelectList}, r.page_number::int4 AS "${PAGE_NUMBER}"` +
          ` FROM unnest(${types.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})` +
          ` WITH ORDINALITY AS r(${[...names, 'page_number'].join(', ')})` +
          ` CROSS JOIN LATERAL (SELECT * FROM ${this.table} t` +
          (conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '') +
          ` ORDER BY t.${this.key} LIMIT r.page_limit) p` +
          ` ORDER BY r.page_number, p.${this.key}`
        );
      },
      arrays,
    );
    const found = new Map<string, Array<ReadRow<E, K>>>();
    for (const numbered of rows as Array<ReadRow<E, K> & Record<typeof PAGE_NUMBER, number>>) {
      const key = keys[numbered[PAGE_NUMBER] - 1];
      // A copy without the page number, rather than `delete`, which turned each row into a slow
      // dictionary object: the batch's largest allocation, and slower to write as JSON.
      const row = {} as ReadRow<E, K>;
      for (const property of this.properties) {
        row[property] = (numbered as ReadRow<E, K>)[property];
      }
      const page = found.get(key);
      if (page) {
        page.push(row);
      } else {
        found.set(key, [row]);
      }
    }
    return found;
  }

  private get table(): string {
    return this.metadata.schema
      ? `${quote(this.metadata.schema)}.${quote(this.metadata.tableName)}`
      : quote(this.metadata.tableName);
  }

  /** The column's type as PostgreSQL names it (`bigint`, `character varying`), for casts. */
  private typeOf(column: ColumnMetadata): string {
    return this.dataSource.driver.normalizeType(column);
  }

  private column(property: string) {
    const column = this.metadata.findColumnWithPropertyName(property);
    if (!column) {
      throw new Error(`${this.metadata.name} has no column for the property ${property}`);
    }
    return column;
  }

  /** Runs the statement of this kind, built on first use; pg prepares a named statement once per connection. */
  private query(kind: string, build: () => string, values: unknown[]) {
    let statement = this.statements.get(kind);
    if (!statement) {
      const text = build();
      // PostgreSQL cuts statement names at 63 bytes: a digest keeps long ones apart.
      const digest = createHash('sha256').update(text).digest('base64url').slice(0, 22);
      statement = { name: `${this.metadata.tableName.slice(0, 32)}-${digest}`, text };
      this.statements.set(kind, statement);
    }
    return postgresPool(this.dataSource).query<ReadRow<E, K>>({ ...statement, values });
  }
}

type ColumnMetadata = EntityMetadata['columns'][number];

/** A page's values: each filter's (in the kind's order), `after` (null on a first page), the limit. */
type PageValues = Array<string | number | boolean | null>;

/** The column that numbers each row's page in a batch of pages; taken off the rows it answers. */
const PAGE_NUMBER = '__page';

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
