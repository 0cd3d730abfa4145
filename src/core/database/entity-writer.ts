import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

import { stringifyJson } from '../http/json.js';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.js';
import { isDatabaseUnavailableError } from './database-errors.js';
import { type EntityRow, EntityTable, type NamedStatement, quote } from './entity-table.js';
import { ItemFailure, NaturalBatch } from './natural-batch.js';
import { postgresPool } from './postgres-pool.js';

/** A row as the writer stores it and answers it: the chosen properties, `bigint` columns as exact decimal text. */
export type WriteRow<E, K extends keyof E> = EntityRow<E, K>;

/** What happened to one create: stored now, or found stored already under its key. */
export interface WriteOutcome<E, K extends keyof E> {
  readonly created: boolean;
  /** The row given, when created; else the row stored under its key. */
  readonly stored: WriteRow<E, K>;
}

export interface EntityWriterOptions<E, K extends keyof E & string> {
  /** Batches in flight at once; more creates wait and go together in the next batch. */
  readonly concurrency: number;
  /** Rows in one statement at most. */
  readonly maxBatchSize: number;
  /** The properties written, the primary key among them; by default the record's (every column TypeORM does not fill itself). */
  readonly columns?: readonly K[];
  /**
   * The event announced to webhook subscribers for each row inserted
   * (`plant.created`), and the properties its payload holds (by default
   * the columns written).
   */
  readonly created?: { readonly event: string; readonly payload?: ReadonlyArray<keyof E & string> };
}

/** Where the `created` events go: the outbox renders their SQL; the dispatcher delivers them once committed. */
export interface WriterEvents {
  readonly outbox: Pick<WebhookOutbox, 'rowEventsSql' | 'subscribers'>;
  readonly dispatcher: Pick<WebhookDispatcher, 'nudge'>;
}

/**
 * A key found taken whose row has gone by the time it is read (deleted in
 * between) is written again, a few times at most.
 */
const MAX_ATTEMPTS = 3;

/**
 * Inserts one entity's rows with natural batching (`NaturalBatch`): a create
 * that finds a free slot is sent at once, alone, so there is no timer and no
 * added latency at low load; creates that arrive while every slot is busy
 * wait, and leave together as one multi-row statement
 * (`INSERT … SELECT * FROM unnest(…) ON CONFLICT (key) DO NOTHING`) as soon
 * as a slot frees up. Each statement commits before any of its creates is
 * answered, so nothing is acknowledged before it is durable. No row is read
 * before it is written: PostgreSQL settles races with other batches and
 * other instances.
 *
 * Each create learns whether its row was stored now, or which row its key
 * already held (what that means, a replay or a conflict, is the resource's
 * call); creates of one key in one batch are served by one row. One row
 * PostgreSQL refuses must not fail the others: a batch that fails for any
 * reason other than the database being unavailable is run again row by row.
 *
 * With `created` and webhook subscribers, the same statement records an
 * event per inserted row in the outbox (`WebhookOutbox.rowEventsSql`): no
 * event without its row, no row without its events, no extra round trip.
 *
 * Every statement is built when the writer is made (`statements`, kept as a
 * snapshot beside the resource). Provided per entity by
 * `EntityAccessModule.forFeature`.
 */
export class EntityWriter<E extends ObjectLiteral, K extends keyof E & string> {
  /** Every statement the writer may run, in a stable order. */
  readonly statements: readonly NamedStatement[];
  private readonly table: EntityTable<E>;
  private readonly properties: readonly K[];
  private readonly keyProperty: K;
  /** Columns written as JSON text (json, jsonb), by position: pg would take an array value as an SQL array. */
  private readonly json: readonly boolean[];
  /** The insert that runs: with the outbox's CTE when there are events to record. */
  private readonly insertStatement: NamedStatement;
  private readonly selectStatement: NamedStatement;
  private readonly subscribers?: readonly string[];
  private readonly batch: NaturalBatch<WriteRow<E, K>, WriteOutcome<E, K>>;

  constructor(
    private readonly dataSource: DataSource,
    entity: EntityTarget<E>,
    options: EntityWriterOptions<E, K>,
    private readonly events?: WriterEvents,
  ) {
    this.table = new EntityTable(dataSource, entity);
    const { key, name: table, metadata } = this.table;
    this.properties = options.columns ?? (this.table.recordProperties as K[]);
    this.keyProperty = key.propertyName as K;
    if (!this.properties.includes(this.keyProperty)) {
      throw new Error(`${metadata.name}: EntityWriter must write the primary key, ${this.keyProperty}`);
    }
    const columns = this.properties.map((property) => this.table.column(property));
    this.json = columns.map((column) => column.type === 'json' || column.type === 'jsonb');

    const insert = (returning: string) =>
      [
        `INSERT INTO ${table} (${columns.map((column) => quote(column.databaseName)).join(', ')})`,
        `SELECT * FROM unnest(${columns.map((column, index) => `$${index + 1}::${this.table.typeOf(column)}[]`).join(', ')})`,
        `ON CONFLICT (${quote(key.databaseName)}) DO NOTHING`,
        `RETURNING ${returning}`,
      ].join('\n');
    const plainInsert = this.table.statement('insert-batch', insert(`${this.table.asText(key)} AS "key"`));
    const statements = [plainInsert];
    this.insertStatement = plainInsert;

    if (options.created) {
      if (!events) {
        throw new Error(`${metadata.name}: announcing ${options.created.event} needs the webhook outbox`);
      }
      const payload = (options.created.payload ?? this.properties).map((property) =>
        this.table.column(property),
      );
      const returned = [...new Set([key, ...payload])].map((column) => quote(column.databaseName));
      const withEvents = this.table.statement(
        'insert-batch-with-events',
        [
          `WITH inserted AS (`,
          indent(insert(returned.join(', '))),
          `),`,
          events.outbox.rowEventsSql('events', {
            eventType: options.created.event,
            rows: 'inserted',
            payload: payload.map((column) => [column.propertyName, quote(column.databaseName)] as const),
            subscribersParameter: `$${columns.length + 1}`,
          }),
          `SELECT ${this.table.asText(key)} AS "key" FROM inserted`,
        ].join('\n'),
      );
      statements.push(withEvents);
      if (events.outbox.subscribers.length > 0) {
        // With no subscriber, the plain statement: no outbox row, no cost.
        this.insertStatement = withEvents;
        this.subscribers = events.outbox.subscribers;
      }
    }

    this.selectStatement = this.table.statement(
      'select-stored',
      [
        `SELECT ${columns.map((column) => this.table.selected(column)).join(', ')}`,
        `FROM ${table}`,
        `WHERE ${quote(key.databaseName)} = ANY ($1::${this.table.typeOf(key)}[])`,
      ].join('\n'),
    );
    statements.push(this.selectStatement);
    this.statements = statements;

    this.batch = new NaturalBatch((rows) => this.store(rows), {
      concurrency: options.concurrency,
      maxBatchSize: options.maxBatchSize,
      retryAlone: (error) => !isDatabaseUnavailableError(error),
      span: `${metadata.tableName} batch insert`,
    });
  }

  /** Stores the row unless its key is taken; answered once the statement has committed. */
  write(row: WriteRow<E, K>): Promise<WriteOutcome<E, K>> {
    return this.batch.submit(row);
  }

  private async store(rows: Array<WriteRow<E, K>>): Promise<Array<WriteOutcome<E, K> | ItemFailure>> {
    const outcomes = new Array<WriteOutcome<E, K> | ItemFailure | undefined>(rows.length);
    let waiting = rows.map((_, index) => index);
    for (let attempt = 1; ; attempt++) {
      // One row per key goes to the database; the others of that key learn from it.
      const first = new Map<string, number>();
      for (const index of waiting) {
        const key = this.keyOf(rows[index]);
        if (!first.has(key)) {
          first.set(key, index);
        }
      }
      const inserted = await this.insert([...first.values()].map((index) => rows[index]));
      const stored = new Map<string, WriteRow<E, K>>();
      const taken: string[] = [];
      for (const [key, index] of first) {
        if (inserted.has(key)) {
          stored.set(key, rows[index]);
          outcomes[index] = { created: true, stored: rows[index] };
        } else {
          taken.push(key);
        }
      }
      if (inserted.size > 0 && this.subscribers) {
        this.events?.dispatcher.nudge();
      }
      if (taken.length > 0) {
        for (const row of await this.select(taken)) {
          stored.set(this.keyOf(row), row);
        }
      }

      const unseen: number[] = [];
      for (const index of waiting) {
        if (outcomes[index] === undefined) {
          const row = stored.get(this.keyOf(rows[index]));
          if (row) {
            outcomes[index] = { created: false, stored: row };
          } else {
            unseen.push(index);
          }
        }
      }
      if (unseen.length === 0) {
        return outcomes as Array<WriteOutcome<E, K>>;
      }
      if (attempt === MAX_ATTEMPTS) {
        for (const index of unseen) {
          outcomes[index] = new ItemFailure(
            new Error(
              `${this.table.metadata.name} ${this.keyOf(rows[index])} was neither inserted nor found`,
            ),
          );
        }
        return outcomes as Array<WriteOutcome<E, K> | ItemFailure>;
      }
      waiting = unseen;
    }
  }

  private keyOf(row: WriteRow<E, K>): string {
    return String(row[this.keyProperty]);
  }

  /** Inserts the rows, and answers the keys it inserted. */
  private async insert(rows: Array<WriteRow<E, K>>): Promise<Set<string>> {
    const values: unknown[] = this.properties.map((property, index) =>
      this.json[index] ? rows.map((row) => jsonText(row[property])) : rows.map((row) => row[property]),
    );
    if (this.subscribers) {
      values.push(this.subscribers);
    }
    const { rows: returned } = await postgresPool(this.dataSource).query<{ key: string }>({
      ...this.insertStatement,
      values,
    });
    return new Set(returned.map((row) => String(row.key)));
  }

  /** The rows stored under the keys a batch found taken: only needed for replays and conflicts. */
  private async select(keys: string[]): Promise<Array<WriteRow<E, K>>> {
    const { rows } = await postgresPool(this.dataSource).query<WriteRow<E, K>>({
      ...this.selectStatement,
      values: [keys],
    });
    return rows;
  }
}

function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : stringifyJson(value);
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}
