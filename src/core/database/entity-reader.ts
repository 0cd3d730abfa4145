import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

import {
  type ColumnMetadata,
  type EntityRow,
  EntityTable,
  type NamedStatement,
  quote,
  VERSION_PROPERTY,
  type Versioned,
} from './entity-table.js';
import { NaturalBatch } from './natural-batch.js';
import { postgresPool } from './postgres-pool.js';

/** A row as the reader answers it: the chosen properties, `bigint` columns as exact decimal text. */
export type ReadRow<E, K extends keyof E> = EntityRow<E, K>;

/** A row read by id: with its `version` too, when the entity has a version column (its ETag). */
export type VersionedReadRow<E, K extends keyof E> = ReadRow<E, K> & Versioned<E>;

export interface PageQuery<E> {
  /** Only rows whose primary key is greater than this (keyset pagination). */
  readonly after?: string;
  readonly limit: number;
  /** Equality filters on columns, by property name: one of the reader's page filters. */
  readonly where?: Partial<Record<keyof E & string, string | number | boolean | null>>;
}

export interface EntityReaderOptions<E, K extends keyof E & string> {
  /** The properties each row holds, the primary key among them; by default the record's (every column TypeORM does not fill itself). */
  readonly columns?: readonly K[];
  /**
   * The sets of equality filters pages may have: by default none, and those
   * of every index that ends with the primary key (`@Index(['tag', 'id'])`
   * lets pages filter by tag), as such an index finds a page's start directly.
   */
  readonly pageFilters?: ReadonlyArray<ReadonlyArray<keyof E & string>>;
}

/** Reads by id: in flight at once, and ids in one statement at most. */
const BY_ID_BATCHES = { concurrency: 4, maxBatchSize: 256 };
/** Pages of one kind likewise. */
const PAGE_BATCHES = { concurrency: 4, maxBatchSize: 64 };

/** A page's values: each filter's (in the kind's order), `after` (null on a first page), the limit. */
type PageValues = Array<string | number | boolean | null>;

/** The column that numbers each row's page in a batch of pages; taken off the rows it answers. */
const PAGE_NUMBER = '__page';

interface PageKind<E, K extends keyof E> {
  readonly filters: ReadonlyArray<keyof E & string>;
  readonly withAfter: boolean;
  readonly statement: NamedStatement;
  /** Pages of this kind asked for while others are in flight go as one statement together. */
  readonly batch: NaturalBatch<string, Array<ReadRow<E, K>> | undefined>;
}

/**
 * Reads one entity's rows the fast way: one named (prepared) statement per
 * kind of read, on the pool TypeORM owns (the same connections, limits and
 * timeouts), with the column names taken from the entity's metadata, so that
 * the entity stays the schema's source of truth. No query builder, no
 * entity hydration: each row comes back as a plain object of the properties
 * asked for. Every statement is built when the reader is made (`statements`,
 * kept as a snapshot beside the resource), and parsed once per connection.
 *
 * For reads by primary key and keyset pages, the two reads every resource
 * has. Anything else goes through TypeORM's repository as usual. Provided
 * per entity by `EntityAccessModule.forFeature`.
 */
export class EntityReader<E extends ObjectLiteral, K extends keyof E & string> {
  /** Every statement the reader runs, in a stable order. */
  readonly statements: readonly NamedStatement[];
  private readonly table: EntityTable<E>;
  private readonly properties: readonly K[];
  private readonly byIdStatement: NamedStatement;
  /** Reads by id that arrive together go as one statement. */
  private readonly byId: NaturalBatch<string, VersionedReadRow<E, K> | undefined>;
  /** By the filters' names and whether there is an `after` (`pageKindKey`). */
  private readonly pageKinds = new Map<string, PageKind<E, K>>();

  constructor(
    private readonly dataSource: DataSource,
    entity: EntityTarget<E>,
    options: EntityReaderOptions<E, K> = {},
  ) {
    this.table = new EntityTable(dataSource, entity);
    const { key, name: table } = this.table;
    this.properties = options.columns ?? (this.table.recordProperties as K[]);
    if (!this.properties.includes(key.propertyName as K)) {
      throw new Error(
        `${this.table.metadata.name}: EntityReader must read the primary key, ${key.propertyName}`,
      );
    }
    const columns = this.properties.map((property) => this.table.column(property));
    const keyType = this.table.typeOf(key);

    // A read by id answers the version too (a conditional GET needs it); pages do not.
    const version = this.table.version;
    const byIdList = columns.map((column) => this.table.selected(column));
    if (version) {
      byIdList.push(`${quoted(version)} AS ${quote(VERSION_PROPERTY)}`);
    }
    this.byIdStatement = this.table.statement(
      'by-ids',
      [
        `SELECT ${byIdList.join(', ')}`,
        `FROM ${table}`,
        `WHERE ${quoted(key)} = ANY ($1::${keyType}[])`,
      ].join('\n'),
    );
    this.byId = new NaturalBatch((ids) => this.findByIds(ids), BY_ID_BATCHES);

    const pageSelectList = columns.map((column) => this.table.selected(column, 'p.')).join(', ');
    for (const filters of this.pageFilterSets(options.pageFilters)) {
      for (const withAfter of [false, true]) {
        const filterColumns = filters.map((property) => this.table.column(property));
        const types = filterColumns.map((column) => this.table.typeOf(column));
        const names = filterColumns.map((_, index) => `f${index}`);
        const conditions = filterColumns.map((column, index) => `t.${quoted(column)} = r.${names[index]}`);
        if (withAfter) {
          types.push(keyType);
          names.push('after');
          conditions.push(`t.${quoted(key)} > r.after`);
        }
        types.push('int4');
        names.push('page_limit');
        const kind = `pages${filters.map((property) => `-${property}`).join('')}${withAfter ? '-after' : ''}`;
        const statement = this.table.statement(
          kind,
          [
            `SELECT ${pageSelectList}, r.page_number::int4 AS "${PAGE_NUMBER}"`,
            `FROM unnest(${types.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})` +
              ` WITH ORDINALITY AS r (${[...names, 'page_number'].join(', ')})`,
            `CROSS JOIN LATERAL (`,
            `  SELECT * FROM ${table} t`,
            ...(conditions.length > 0 ? [`  WHERE ${conditions.join(' AND ')}`] : []),
            `  ORDER BY t.${quoted(key)}`,
            `  LIMIT r.page_limit`,
            `) p`,
            `ORDER BY r.page_number, p.${quoted(key)}`,
          ].join('\n'),
        );
        const pageKind: PageKind<E, K> = {
          filters,
          withAfter,
          statement,
          batch: new NaturalBatch((keys) => this.findPages(pageKind, keys), PAGE_BATCHES),
        };
        this.pageKinds.set(pageKindKey(filters, withAfter), pageKind);
      }
    }
    this.statements = [this.byIdStatement, ...[...this.pageKinds.values()].map((kind) => kind.statement)];
  }

  /**
   * The row under this primary key (given as its canonical text: decimal
   * digits for a bigint), or undefined; with its `version` when the entity
   * has a version column. Reads that arrive while others are in flight are
   * answered by one statement together.
   */
  findById(id: string): Promise<VersionedReadRow<E, K> | undefined> {
    return this.byId.submit(id);
  }

  private async findByIds(ids: string[]): Promise<Array<VersionedReadRow<E, K> | undefined>> {
    const { rows } = (await this.query(this.byIdStatement, [ids.length === 1 ? ids : [...new Set(ids)]])) as {
      rows: Array<VersionedReadRow<E, K>>;
    };
    const found = new Map<string, VersionedReadRow<E, K>>();
    for (const row of rows) {
      found.set(String(row[this.table.key.propertyName as K]), row);
    }
    return ids.map((id) => found.get(id));
  }

  /**
   * Up to `limit` rows in primary key order, after `after`, matching `where`.
   * Pages asked for while others are in flight are answered by one statement
   * together, as reads by id are: one index scan per page, each page its own
   * (see `findPages`).
   */
  async page({ after, limit, where }: PageQuery<E>): Promise<Array<ReadRow<E, K>>> {
    const filters = where === undefined ? [] : (Object.keys(where).sort() as Array<keyof E & string>);
    const kind = this.pageKinds.get(pageKindKey(filters, after !== undefined));
    if (!kind) {
      throw new Error(
        `${this.table.metadata.name}: no page filters by ${filters.join(', ')}; give an index that leads ` +
          'with those columns and ends with the primary key, or name them in pageFilters',
      );
    }
    const values: PageValues = [
      ...filters.map((property) => where?.[property] ?? null),
      after ?? null,
      limit,
    ];
    return (await kind.batch.submit(JSON.stringify(values))) ?? [];
  }

  /**
   * The pages of one kind, each key a page's values as JSON: one statement,
   * a keyset scan per page (`LATERAL`), every page read in the same snapshot.
   */
  private async findPages(
    kind: PageKind<E, K>,
    keys: string[],
  ): Promise<Array<Array<ReadRow<E, K>> | undefined>> {
    const unique = keys.length === 1 ? keys : [...new Set(keys)];
    const pages = unique.map((key) => JSON.parse(key) as PageValues);
    const filterCount = kind.filters.length;
    // One array per page value: each filter, then `after` (when the kind has one), then the limit.
    const arrays = kind.filters.map((_, index) => pages.map((values) => values[index]));
    if (kind.withAfter) {
      arrays.push(pages.map((values) => values[filterCount]));
    }
    arrays.push(pages.map((values) => values[filterCount + 1]));
    const { rows } = await this.query(kind.statement, arrays);
    const found = new Map<string, Array<ReadRow<E, K>>>();
    for (const numbered of rows as Array<ReadRow<E, K> & Record<typeof PAGE_NUMBER, number>>) {
      const key = unique[numbered[PAGE_NUMBER] - 1];
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
    return keys.map((key) => found.get(key));
  }

  /** None, then each index's leading columns where the index ends with the key; or those given. */
  private pageFilterSets(given?: ReadonlyArray<ReadonlyArray<keyof E & string>>) {
    const sets = new Map<string, Array<keyof E & string>>([['', []]]);
    const derived = this.table.metadata.indices
      .filter((index) => !index.where && index.columns.at(-1) === this.table.key && index.columns.length > 1)
      .map((index) => index.columns.slice(0, -1).map((column) => column.propertyName as keyof E & string));
    for (const filters of given ?? derived) {
      const sorted = [...filters].sort();
      sets.set(sorted.join(','), sorted);
    }
    return sets.values();
  }

  /** Runs a statement; pg prepares a named statement once per connection. */
  private query(statement: NamedStatement, values: unknown[]) {
    return postgresPool(this.dataSource).query<ReadRow<E, K>>({ ...statement, values });
  }
}

function pageKindKey(filters: readonly string[], withAfter: boolean): string {
  return `${filters.join(',')}${withAfter ? ' after' : ''}`;
}

function quoted(column: ColumnMetadata): string {
  return quote(column.databaseName);
}
