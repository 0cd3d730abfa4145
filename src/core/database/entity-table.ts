import { createHash } from 'node:crypto';

import type { DataSource, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';

/** A statement as pg prepares it: once per connection under its name. */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/** A row of the chosen properties, `bigint` columns as exact decimal text. */
export type EntityRow<E, K extends keyof E> = { [P in K]: E[P] };

/** The property under which rows carry their version, whatever the column's name. */
export const VERSION_PROPERTY = 'version';

/**
 * What a row of `E` carries besides its chosen properties: its version, when
 * the entity declares one (`@VersionColumn() version!: number`).
 */
export type Versioned<E> = E extends { readonly version: number } ? { readonly version: number } : unknown;

export type ColumnMetadata = EntityMetadata['columns'][number];

/**
 * One entity's table as its hand-written statements see it, from TypeORM's
 * metadata (so that the entity stays the schema's source of truth): quoted
 * names, the single-column primary key, and each column's type as
 * PostgreSQL names it, for the casts of array parameters.
 */
export class EntityTable<E extends ObjectLiteral> {
  readonly metadata: EntityMetadata;
  /** The table's quoted name, with its schema when it has one. */
  readonly name: string;
  readonly key: ColumnMetadata;
  /** The column TypeORM counts the row's changes in (`@VersionColumn()`), when the entity has one. */
  readonly version?: ColumnMetadata;

  constructor(
    private readonly dataSource: DataSource,
    entity: EntityTarget<E>,
  ) {
    this.metadata = dataSource.getMetadata(entity);
    const primary = this.metadata.primaryColumns;
    if (primary.length !== 1) {
      throw new Error(`${this.metadata.name}: the fast paths need a single-column primary key`);
    }
    this.key = primary[0];
    this.version = this.metadata.versionColumn;
    this.name = this.metadata.schema
      ? `${quote(this.metadata.schema)}.${quote(this.metadata.tableName)}`
      : quote(this.metadata.tableName);
  }

  /**
   * The properties that make a record, in the entity's order: every column
   * except those TypeORM fills itself (the dates of creation, update and
   * deletion, the version) and those of relations.
   */
  get recordProperties(): Array<keyof E & string> {
    return this.metadata.columns
      .filter(
        (column) =>
          !column.isCreateDate &&
          !column.isUpdateDate &&
          !column.isDeleteDate &&
          !column.isVersion &&
          !column.isVirtual &&
          !column.isVirtualProperty &&
          !column.isDiscriminator &&
          !column.isTreeLevel &&
          !column.relationMetadata,
      )
      .map((column) => column.propertyName as keyof E & string);
  }

  column(property: string): ColumnMetadata {
    const column = this.metadata.findColumnWithPropertyName(property);
    if (!column) {
      throw new Error(`${this.metadata.name} has no column for the property ${property}`);
    }
    return column;
  }

  /** The column's type as PostgreSQL names it (`bigint`, `character varying`), for casts. */
  typeOf(column: ColumnMetadata): string {
    return this.dataSource.driver.normalizeType(column);
  }

  /**
   * The column as a value of a row, under its property's name: `bigint` as
   * text (pg hands it over as text anyway; saying so makes the row's type
   * what it is), `from` its qualifier (`p.`).
   */
  selected(column: ColumnMetadata, from = ''): string {
    return `${this.asText(column, from)} AS ${quote(column.propertyName)}`;
  }

  /** The column's value, `bigint` as exact decimal text. */
  asText(column: ColumnMetadata, from = ''): string {
    const name = from + quote(column.databaseName);
    return column.type === 'bigint' ? `${name}::text` : name;
  }

  /**
   * A named statement of this table: its name says what it is, and ends with
   * a digest of its text, since pg refuses a name prepared on a connection
   * with another text (two readers of one table with other columns, say).
   * PostgreSQL keeps 63 bytes of a name.
   */
  statement(kind: string, text: string): NamedStatement {
    const label = `${this.metadata.tableName}-${kind}`.replace(/[^\w-]/g, '_').slice(0, 46);
    const digest = createHash('sha256').update(text).digest('base64url').slice(0, 16);
    return { name: `${label}-${digest}`, text };
  }
}

export function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
