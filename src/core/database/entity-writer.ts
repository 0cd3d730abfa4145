import { type Context, context } from '@opentelemetry/api';
import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

import { stringifyJson } from '../http/json.js';
import { traceparentOf } from '../tracing/trace-context.js';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.js';
import { isDatabaseUnavailableError } from './database-errors.js';
import {
  type ColumnMetadata,
  type EntityRow,
  EntityTable,
  type NamedStatement,
  quote,
  VERSION_PROPERTY,
  type Versioned,
} from './entity-table.js';
import { ItemFailure, NaturalBatch } from './natural-batch.js';
import { postgresPool } from './postgres-pool.js';

/** A row as the writer stores it and answers it: the chosen properties, `bigint` columns as exact decimal text. */
export type WriteRow<E, K extends keyof E> = EntityRow<E, K>;

/** A row as an update or a delete answers it: with its `version` when the entity has a version column. */
export type VersionedWriteRow<E, K extends keyof E> = WriteRow<E, K> & Versioned<E>;

/**
 * The versions a row must be at for a change to go ahead: those of the
 * `If-Match` tags (see `conditional-requests.ts`). None matches no row.
 * No precondition at all: the change is unconditional.
 */
export interface WritePrecondition {
  readonly versions: readonly number[];
}

/**
 * What happened to one update or delete: done (the row after the update,
 * or the row deleted), no row under the key, or a row at another version
 * than the precondition's.
 */
export type ChangeOutcome<E, K extends keyof E> =
  | { readonly outcome: 'changed'; readonly row: VersionedWriteRow<E, K> }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'stale' };

/** The event a change announces, and the properties of its payload. */
export interface ChangeEvent<E> {
  readonly event: string;
  readonly payload?: ReadonlyArray<keyof E & string>;
}

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
  /** The event of each update (`plant.updated`); its payload by default the columns written, as they are after it. */
  readonly updated?: ChangeEvent<E>;
  /** The event of each delete (`plant.deleted`); its payload by default the primary key alone. */
  readonly deleted?: ChangeEvent<E>;
}

/** Where the writer's events go: the outbox renders their SQL; the dispatcher delivers them once committed. */
export interface WriterEvents {
  readonly outbox: Pick<WebhookOutbox, 'rowEventsSql' | 'subscribers'>;
  readonly dispatcher: Pick<WebhookDispatcher, 'nudge'>;
}

/** The column of a change's answer that says whether the key had a row in the statement's snapshot. */
const FOUND = '__found';

/** One statement of a change, with its events (when there are subscribers) or without. */
interface ChangeStatements {
  readonly plain: NamedStatement;
  readonly withEvents?: NamedStatement;
}

/** An update waiting for its batch: the key, a pair per changeable property (whether to set it, its value), the versions it may be at (null: any). */
interface PendingUpdate {
  readonly key: string;
  readonly changes: readonly unknown[];
  readonly versions: readonly number[] | null;
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
 * Updates are batched the same way (`UPDATE … FROM unnest(…)`, the keys of
 * one statement distinct); deletes are one statement each. Either is atomic
 * for each row: the version check of an `If-Match` is in the statement's `WHERE`
 * (a row changed meanwhile is left alone, as PostgreSQL re-checks the
 * condition on the row it waited for), the version goes up by one with every
 * update, the events (`updated`, `deleted`) are recorded by the same
 * statement, and the statement's own snapshot tells a missing row (404)
 * from one at another version (412).
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
  /** The properties an update may set: every one written but the key. */
  private readonly changeable: readonly K[];
  private readonly changeableJson: readonly boolean[];
  private readonly versionColumn?: ColumnMetadata;
  private readonly removeStatement: NamedStatement;
  /** Reads the row an empty update leaves as it is. */
  private readonly currentStatement: NamedStatement;
  /** Whether updates and deletes record events, and to whom. */
  private readonly updateSubscribers?: readonly string[];
  private readonly removeSubscribers?: readonly string[];
  private readonly batch: NaturalBatch<WriteRow<E, K>, WriteOutcome<E, K>>;
  /** Updates, several rows to a statement under load. */
  private readonly updates: NaturalBatch<PendingUpdate, ChangeOutcome<E, K>>;
  private readonly updateStatement: NamedStatement;

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
            rows: this.byProducer('inserted', `$${columns.indexOf(key) + 1}`, `$${columns.length + 2}`),
            payload: payload.map((column) => [column.propertyName, quote(column.databaseName)] as const),
            subscribersParameter: `$${columns.length + 1}`,
            traceparent: 'producer.producer_traceparent',
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

    this.versionColumn = this.table.version;
    this.changeable = this.properties.filter((property) => property !== this.keyProperty);
    this.changeableJson = this.changeable.map((property) => {
      const { type } = this.table.column(property);
      return type === 'json' || type === 'jsonb';
    });
    const update = this.updateStatements(options.updated, events);
    const remove = this.removeStatements(options.deleted, events);
    const current = this.table.statement(
      'select-current',
      [
        `SELECT ${this.rowList('')}`,
        `FROM ${table}`,
        `WHERE ${quote(key.databaseName)} = $1::${this.table.typeOf(key)}`,
      ].join('\n'),
    );
    this.currentStatement = current;
    statements.push(update.plain, ...(update.withEvents ? [update.withEvents] : []));
    statements.push(remove.plain, ...(remove.withEvents ? [remove.withEvents] : []));
    statements.push(current);
    const subscribed = events && events.outbox.subscribers.length > 0 ? events.outbox.subscribers : undefined;
    this.updateStatement = (subscribed && update.withEvents) || update.plain;
    this.updateSubscribers = subscribed && update.withEvents ? subscribed : undefined;
    this.removeStatement = (subscribed && remove.withEvents) || remove.plain;
    this.removeSubscribers = subscribed && remove.withEvents ? subscribed : undefined;
    this.statements = statements;

    this.batch = new NaturalBatch((rows, contexts) => this.store(rows, contexts), {
      concurrency: options.concurrency,
      maxBatchSize: options.maxBatchSize,
      retryAlone: (error) => !isDatabaseUnavailableError(error),
      span: `${metadata.tableName} batch insert`,
    });
    this.updates = new NaturalBatch((pending, contexts) => this.updateInBatch(pending, contexts), {
      concurrency: options.concurrency,
      maxBatchSize: options.maxBatchSize,
      retryAlone: (error) => !isDatabaseUnavailableError(error),
      span: `${metadata.tableName} batch update`,
    });
  }

  /** Stores the row unless its key is taken; answered once the statement has committed. */
  write(row: WriteRow<E, K>): Promise<WriteOutcome<E, K>> {
    return this.batch.submit(row);
  }

  private async store(
    rows: Array<WriteRow<E, K>>,
    contexts: ReadonlyArray<Context | undefined>,
  ): Promise<Array<WriteOutcome<E, K> | ItemFailure>> {
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
      const sent = [...first.values()];
      const inserted = await this.insert(
        sent.map((index) => rows[index]),
        sent.map((index) => contexts[index]),
      );
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

  /**
   * Sets the given properties of the row under `key` (an absent or undefined
   * property is left as it is), and its version one higher, if the row is at
   * one of the precondition's versions; one statement, shared with other
   * updates under load, which records the `updated` event too. No changes at
   * all change nothing (no new version, no event): the row is read, and the
   * precondition checked against it.
   */
  async update(
    key: string,
    changes: Partial<WriteRow<E, K>>,
    precondition?: WritePrecondition,
  ): Promise<ChangeOutcome<E, K>> {
    const versions = this.versionsOf(precondition);
    let changing = false;
    for (const property of Object.keys(changes)) {
      if (!this.changeable.includes(property as K) && changes[property as K] !== undefined) {
        throw new Error(`${this.table.metadata.name}: an update cannot set ${property}`);
      }
    }
    const pairs: unknown[] = [];
    this.changeable.forEach((property, index) => {
      const value = changes[property];
      changing ||= value !== undefined;
      pairs.push(value !== undefined, this.changeableJson[index] ? jsonText(value) : (value ?? null));
    });
    if (!changing) {
      return this.current(key, versions);
    }
    return this.updates.submit({ key, changes: pairs, versions });
  }

  /**
   * Deletes the row under `key` if it is at one of the precondition's
   * versions; one statement, which records the `deleted` event too. Answers
   * the row deleted.
   */
  async remove(key: string, precondition?: WritePrecondition): Promise<ChangeOutcome<E, K>> {
    const values: unknown[] = [key];
    if (this.versionColumn) {
      values.push(this.versionsOf(precondition));
    }
    if (this.removeSubscribers) {
      values.push(this.removeSubscribers, traceparentOf(context.active()));
    }
    const { rows } = await postgresPool(this.dataSource).query<
      VersionedWriteRow<E, K> & Record<typeof FOUND, boolean | null>
    >({ ...this.removeStatement, values });
    const outcome = this.outcomeOf(rows[0]);
    if (this.removeSubscribers && outcome.outcome === 'changed') {
      this.events?.dispatcher.nudge();
    }
    return outcome;
  }

  private versionsOf(precondition: WritePrecondition | undefined): readonly number[] | null {
    if (precondition && !this.versionColumn) {
      throw new Error(`${this.table.metadata.name} has no version column to check a precondition against`);
    }
    return precondition ? precondition.versions : null;
  }

  /** What an update without changes answers: the row as it is, if the precondition holds. */
  private async current(key: string, versions: readonly number[] | null): Promise<ChangeOutcome<E, K>> {
    const { rows } = await postgresPool(this.dataSource).query<VersionedWriteRow<E, K>>({
      ...this.currentStatement,
      values: [key],
    });
    const [row] = rows;
    if (!row) {
      return NOT_FOUND;
    }
    const version = (row as Record<string, unknown>)[VERSION_PROPERTY] as number;
    return versions === null || versions.includes(version) ? { outcome: 'changed', row } : STALE;
  }

  /** The properties, and the version, as a row's select list, `from` the qualifier of the columns. */
  private rowList(from: string): string {
    const list = this.properties.map((property) => this.table.selected(this.table.column(property), from));
    if (this.versionColumn) {
      list.push(`${from}${quote(this.versionColumn.databaseName)} AS ${quote(VERSION_PROPERTY)}`);
    }
    return list.join(', ');
  }

  /**
   * A delete's statement, plain and with its events: `$1` the key, `$2` the
   * versions the row may be at (null: any), and last the subscribers and the
   * change's `traceparent`, with events. It answers one row: the row deleted
   * (its key null when none was), and, when none was, whether the key had a
   * row in the statement's snapshot, which tells a stale version from a
   * missing row.
   */
  private removeStatements(
    event: ChangeEvent<E> | undefined,
    events: WriterEvents | undefined,
  ): ChangeStatements {
    const { key, name: table, metadata } = this.table;
    const version = this.versionColumn;
    const keyMatch = `${quote(key.databaseName)} = $1::${this.table.typeOf(key)}`;
    const conditions = [keyMatch];
    let parameter = 2;
    if (version) {
      const versionType = this.table.typeOf(version);
      conditions.push(
        `($2::${versionType}[] IS NULL OR ${quote(version.databaseName)} = ANY ($2::${versionType}[]))`,
      );
      parameter = 3;
    }
    const change = [
      `DELETE FROM ${table}`,
      `WHERE ${conditions.join('\n  AND ')}`,
      `RETURNING ${this.returned('')}`,
    ];
    const answer = [
      `SELECT ${this.rowList('changed.')},`,
      // Asked only when nothing changed: whether the key had a row tells a stale version from a missing row.
      `  CASE WHEN changed.${quote(key.databaseName)} IS NULL`,
      `    THEN EXISTS (SELECT FROM ${table} WHERE ${keyMatch}) END AS ${quote(FOUND)}`,
      `FROM (VALUES (1)) AS one`,
      `LEFT JOIN changed ON true`,
    ];
    const plain = this.table.statement(
      'delete',
      [`WITH changed AS (`, indent(change.join('\n')), `)`, ...answer].join('\n'),
    );
    if (!event) {
      return { plain };
    }
    if (!events) {
      throw new Error(`${metadata.name}: announcing ${event.event} needs the webhook outbox`);
    }
    const payload = (event.payload ?? [this.keyProperty]).map((property) => this.table.column(property));
    const withEvents = this.table.statement(
      'delete-with-events',
      [
        `WITH changed AS (`,
        indent(change.join('\n')),
        `),`,
        events.outbox.rowEventsSql('events', {
          eventType: event.event,
          rows: 'changed',
          payload: payload.map((column) => [column.propertyName, quote(column.databaseName)] as const),
          subscribersParameter: `$${parameter}`,
          traceparent: `$${parameter + 1}`,
        }),
        ...answer,
      ].join('\n'),
    );
    return { plain, withEvents };
  }

  /**
   * The statement of a batch of updates, plain and with its events: the rows
   * to change as arrays (`$1` the keys, `$2` the versions each may be at, as
   * an array's text, null for any: arrays of arrays must be of one length in
   * PostgreSQL; a pair of arrays per changeable property), the subscribers
   * and each row's `traceparent` last, with events. The version is checked
   * in the `WHERE`, which PostgreSQL evaluates again on a row it waited for,
   * so concurrent updates with the same precondition cannot both win. It
   * answers a row per key, in order: the row changed (its key null when none
   * was), and, when none was, whether the key had a row in the statement's
   * snapshot.
   */
  private updateStatements(
    event: ChangeEvent<E> | undefined,
    events: WriterEvents | undefined,
  ): ChangeStatements {
    const { key, name: table, metadata } = this.table;
    const version = this.versionColumn;
    const keyColumn = quote(key.databaseName);
    const arrays = [`$1::${this.table.typeOf(key)}[]`];
    const names = ['key'];
    if (version) {
      arrays.push(`$2::text[]`);
      names.push('if_versions');
    }
    const assignments = this.changeable.map((property, index) => {
      const column = this.table.column(property);
      arrays.push(
        `$${arrays.length + 1}::boolean[]`,
        `$${arrays.length + 2}::${this.table.typeOf(column)}[]`,
      );
      names.push(`set_${index}`, `value_${index}`);
      const quoted = quote(column.databaseName);
      return `${quoted} = CASE WHEN input.set_${index} THEN input.value_${index} ELSE t.${quoted} END`;
    });
    const conditions = [`t.${keyColumn} = input.key`];
    if (version) {
      const quoted = quote(version.databaseName);
      assignments.push(`${quoted} = t.${quoted} + 1`);
      conditions.push(
        `(input.if_versions IS NULL OR t.${quoted} = ANY (input.if_versions::${this.table.typeOf(version)}[]))`,
      );
    }
    if (assignments.length === 0) {
      // A table of its key alone: nothing to set, but the statement must stay valid SQL.
      assignments.push(`${keyColumn} = t.${keyColumn}`);
    }
    const head = [
      `WITH input AS (`,
      `  SELECT * FROM unnest(${arrays.join(', ')})`,
      `    WITH ORDINALITY AS input (${[...names, 'position'].join(', ')})`,
      `),`,
      `changed AS (`,
      `  UPDATE ${table} AS t`,
      `  SET ${assignments.join(',\n      ')}`,
      `  FROM input`,
      `  WHERE ${conditions.join('\n    AND ')}`,
      `  RETURNING ${this.returned('t.')}`,
      `)`,
    ];
    const answer = [
      `SELECT ${this.rowList('changed.')},`,
      `  CASE WHEN changed.${keyColumn} IS NULL`,
      `    THEN EXISTS (SELECT FROM ${table} WHERE ${keyColumn} = input.key) END AS ${quote(FOUND)}`,
      `FROM input`,
      `LEFT JOIN changed ON changed.${keyColumn} = input.key`,
      `ORDER BY input.position`,
    ];
    const plain = this.table.statement('update-batch', [...head, ...answer].join('\n'));
    if (!event) {
      return { plain };
    }
    if (!events) {
      throw new Error(`${metadata.name}: announcing ${event.event} needs the webhook outbox`);
    }
    const payload = (event.payload ?? this.properties).map((property) => this.table.column(property));
    const withEvents = this.table.statement(
      'update-batch-with-events',
      [
        ...head.slice(0, -1),
        `),`,
        events.outbox.rowEventsSql('events', {
          eventType: event.event,
          rows: this.byProducer('changed', '$1', `$${arrays.length + 2}`),
          payload: payload.map((column) => [column.propertyName, quote(column.databaseName)] as const),
          subscribersParameter: `$${arrays.length + 1}`,
          traceparent: 'producer.producer_traceparent',
        }),
        ...answer,
      ].join('\n'),
    );
    return { plain, withEvents };
  }

  /** The columns a change returns: those written, and the version. */
  private returned(from: string): string {
    const columns = this.properties.map((property) => this.table.column(property));
    if (this.versionColumn) {
      columns.push(this.versionColumn);
    }
    return columns.map((column) => `${from}${quote(column.databaseName)}`).join(', ');
  }

  /**
   * `rows` (a CTE of rows of this table) with each one's caller's trace
   * context, matched by key: the rows an INSERT or UPDATE returns come in no
   * set order. `keys` and `traceparents` are the statement's parameters
   * holding them, in the same order.
   */
  private byProducer(rows: string, keys: string, traceparents: string): string {
    const { key } = this.table;
    return (
      `${rows} JOIN unnest(${keys}::${this.table.typeOf(key)}[], ${traceparents}::text[]) ` +
      `AS producer (producer_key, producer_traceparent) ON producer.producer_key = ${rows}.${quote(key.databaseName)}`
    );
  }

  /**
   * A batch of updates: the keys of one statement must differ (an UPDATE …
   * FROM changes a row once), so a key sent twice waits for the next
   * statement, and the second update sees the first's version.
   */
  private async updateInBatch(
    pending: PendingUpdate[],
    contexts: ReadonlyArray<Context | undefined>,
  ): Promise<Array<ChangeOutcome<E, K>>> {
    const outcomes = new Array<ChangeOutcome<E, K>>(pending.length);
    let waiting = pending.map((_, index) => index);
    while (waiting.length > 0) {
      const keys = new Set<string>();
      const now: number[] = [];
      const later: number[] = [];
      for (const index of waiting) {
        const { key } = pending[index];
        (keys.has(key) ? later : now).push(index);
        keys.add(key);
      }
      const answers = await this.updateRows(
        now.map((index) => pending[index]),
        now.map((index) => contexts[index]),
      );
      now.forEach((index, position) => (outcomes[index] = answers[position]));
      waiting = later;
    }
    return outcomes;
  }

  private async updateRows(
    pending: readonly PendingUpdate[],
    contexts: ReadonlyArray<Context | undefined>,
  ): Promise<Array<ChangeOutcome<E, K>>> {
    const values: unknown[] = [pending.map(({ key }) => key)];
    if (this.versionColumn) {
      values.push(pending.map(({ versions }) => (versions === null ? null : `{${versions.join(',')}}`)));
    }
    for (let pair = 0; pair < this.changeable.length * 2; pair++) {
      values.push(pending.map(({ changes }) => changes[pair]));
    }
    const subscribers = this.updateSubscribers;
    if (subscribers) {
      values.push(subscribers, contexts.map(traceparentOf));
    }
    const { rows } = await postgresPool(this.dataSource).query<
      VersionedWriteRow<E, K> & Record<typeof FOUND, boolean | null>
    >({ ...this.updateStatement, values });
    if (subscribers && rows.some((row) => row[this.keyProperty] !== null)) {
      this.events?.dispatcher.nudge();
    }
    return rows.map((row) => this.outcomeOf(row));
  }

  /** What one row of a change's answer says: the row changed, or why none was. */
  private outcomeOf(
    answer: VersionedWriteRow<E, K> & Record<typeof FOUND, boolean | null>,
  ): ChangeOutcome<E, K> {
    if (answer[this.keyProperty] === null) {
      return answer[FOUND] ? STALE : NOT_FOUND;
    }
    const row = {} as Record<string, unknown>;
    for (const property of this.properties) {
      row[property] = answer[property];
    }
    if (this.versionColumn) {
      row[VERSION_PROPERTY] = (answer as Record<string, unknown>)[VERSION_PROPERTY];
    }
    return { outcome: 'changed', row: row as VersionedWriteRow<E, K> };
  }

  private keyOf(row: WriteRow<E, K>): string {
    return String(row[this.keyProperty]);
  }

  /** Inserts the rows, and answers the keys it inserted; their events carry the callers' trace contexts. */
  private async insert(
    rows: Array<WriteRow<E, K>>,
    contexts: ReadonlyArray<Context | undefined>,
  ): Promise<Set<string>> {
    const values: unknown[] = this.properties.map((property, index) =>
      this.json[index] ? rows.map((row) => jsonText(row[property])) : rows.map((row) => row[property]),
    );
    if (this.subscribers) {
      values.push(this.subscribers, contexts.map(traceparentOf));
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

const STALE = { outcome: 'stale' } as const;
const NOT_FOUND = { outcome: 'not-found' } as const;

function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : stringifyJson(value);
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}
