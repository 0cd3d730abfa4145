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
  private readonly key: string;
  private readonly keyProperty: string;
  private readonly keyType: string;
  /** Reads by id that arrive together go as one statement (see NaturalBatch). */
  private readonly byId: NaturalBatch<string, ReadRow<E, K>>;

  constructor(
    private readonly dataSource: DataSource,
    entity: EntityTarget<E>,
    properties: readonly K[],
  ) {
    this.metadata = dataSource.getMetadata(entity);
    const primary = this.metadata.primaryColumns;
    if (primary.length !== 1) {
      throw new Error(`${this.metadata.name}: EntityReader needs a single-column primary key`);
    }
    this.key = quote(primary[0].databaseName);
    this.keyProperty = primary[0].propertyName;
    this.keyType = typeof primary[0].type === 'string' ? primary[0].type : 'text';
    if (!properties.includes(this.keyProperty as K)) {
      throw new Error(`${this.metadata.name}: EntityReader must read the primary key, ${this.keyProperty}`);
    }
    this.byId = new NaturalBatch((ids) => this.findByIds(ids), { concurrency: 4, maxBatchSize: 256 });
    this.selectList = properties
      .map((property) => {
        const column = this.column(property);
        const name = quote(column.databaseName);
        // pg hands bigint over as text anyway; say so, so the row's type is what it is. (ORDER BY
        // names the table's column, as the alias would otherwise order the text.)
        return `${column.type === 'bigint' ? `${name}::text` : name} AS ${quote(property)}`;
      })
      .join(', ');
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

  /** Up to `limit` rows in primary key order, after `after`, matching `where`. */
  async page({ after, limit, where = {} }: PageQuery<E>): Promise<Array<ReadRow<E, K>>> {
    const filters = Object.keys(where).sort() as Array<keyof E & string>;
    const values: unknown[] = filters.map((property) => where[property]);
    if (after !== undefined) {
      values.push(after);
    }
    values.push(limit);
    const kind = `page-${filters.join('-')}${after === undefined ? '' : '-after'}`;
    const { rows } = await this.query(
      kind,
      () => {
        const conditions = filters.map(
          (property, index) => `${quote(this.column(property).databaseName)} = $${index + 1}`,
        );
        if (after !== undefined) {
          conditions.push(`${this.key} > $${filters.length + 1}`);
        }
        return (
          `SELECT ${this.selectList} FROM ${this.table}` +
          (conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '') +
          ` ORDER BY ${this.table}.${this.key} LIMIT $${values.length}`
        );
      },
      values,
    );
    return rows;
  }

  private get table(): string {
    return this.metadata.schema
      ? `${quote(this.metadata.schema)}.${quote(this.metadata.tableName)}`
      : quote(this.metadata.tableName);
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

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
