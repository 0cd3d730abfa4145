import { context, type Context, type Link, trace, TraceFlags } from '@opentelemetry/api';

import { isDatabaseUnavailableError } from '../core/database/database-errors.js';
import type { Queryable } from '../core/database/postgres-pool.js';
import { tracer } from '../core/tracing/tracer.js';

/** A plant as the writer stores it: the id as exact decimal digits, no tag as null. */
export interface PlantRecord {
  readonly id: string;
  readonly name: string;
  readonly tag: string | null;
}

/** What happened to one create: stored now, or found stored already under its id. */
export interface WriteOutcome {
  readonly created: boolean;
  readonly stored: PlantRecord;
}

interface Pending {
  readonly plant: PlantRecord;
  readonly resolve: (outcome: WriteOutcome) => void;
  readonly reject: (error: unknown) => void;
  /** The trace context of the create that asked for the write, for the statement's span. */
  readonly context: Context;
  attempts: number;
}

/**
 * Inserts the batch's plants (one per id), skipping ids that are taken, and
 * answers the ids it inserted. `ON CONFLICT DO NOTHING` lets PostgreSQL settle
 * races with other batches and other instances; no row is read before it is
 * written.
 */
const INSERT_BATCH_SQL = `
  INSERT INTO plants (id, name, tag)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])
  ON CONFLICT (id) DO NOTHING
  RETURNING id::text AS id`;

/**
 * The same, writing in the same statement (so the same transaction) one
 * `plant.created` outbox row per inserted plant and subscriber: no event
 * without its plant, no plant without its events. The payload is the plant
 * as a NewPlant, its id with every digit (json_build_object writes a bigint
 * as a JSON number).
 */
const INSERT_BATCH_WITH_EVENTS_SQL = `
  WITH inserted AS (
    INSERT INTO plants (id, name, tag)
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])
    ON CONFLICT (id) DO NOTHING
    RETURNING id, name, tag
  ),
  events AS (
    INSERT INTO webhook_deliveries (event_id, event_type, subscriber, payload)
    SELECT event.id, 'plant.created', subscriber.url, event.payload
    FROM (
      SELECT gen_random_uuid() AS id, json_strip_nulls(json_build_object('id', id, 'name', name, 'tag', tag))::text AS payload
      FROM inserted
    ) AS event
    CROSS JOIN unnest($4::text[]) AS subscriber (url)
  )
  SELECT id::text AS id FROM inserted`;

/** The plants stored under the ids a batch found taken: only needed for replays and conflicts. */
const SELECT_STORED_SQL = `SELECT id::text AS id, name, tag FROM plants WHERE id = ANY ($1::bigint[])`;

/**
 * An id found taken whose row has gone by the time it is read (deleted in
 * between) is written again, a few times at most.
 */
const MAX_ATTEMPTS = 3;

export interface PlantWriterOptions {
  /** Batches in flight at once; more requests wait and go together in the next batch. */
  readonly concurrency: number;
  /** Plants in one statement at most. */
  readonly maxBatchSize: number;
  /** Webhook subscribers; with none, no outbox row is written and the plain statement is used. */
  readonly subscribers?: readonly string[];
}

/**
 * Writes plants with natural batching: a create that finds a free slot is
 * sent at once, alone, so there is no timer and no added latency at low load;
 * creates that arrive while every slot is busy wait, and leave together in one
 * multi-row statement as soon as a slot frees up. Each statement commits
 * before any of its creates is answered, so nothing is acknowledged before it
 * is durable.
 *
 * One plant that PostgreSQL refuses must not fail the others: a batch that
 * fails for any reason other than the database being unavailable is split,
 * and its plants are written one by one.
 */
export class PlantWriter {
  private readonly queue: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly database: () => Queryable,
    private readonly options: PlantWriterOptions,
  ) {}

  write(plant: PlantRecord): Promise<WriteOutcome> {
    return new Promise<WriteOutcome>((resolve, reject) => {
      this.queue.push({ plant, resolve, reject, context: context.active(), attempts: 0 });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0 && this.inFlight < this.options.concurrency) {
      const batch = this.queue.splice(0, this.options.maxBatchSize);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.dispatch();
      });
    }
  }

  /**
   * Writes a batch under a span of its own, linked to the span of each create
   * it serves, since one statement does the work of many requests; its parent
   * is the first of them whose trace is sampled (so that the statement shows
   * in a recorded trace when any of them is), or else the first.
   */
  private run(batch: Pending[]): Promise<void> {
    const links: Link[] = [];
    let parent = batch[0].context;
    let sampled = false;
    for (const pending of batch) {
      const spanContext = trace.getSpanContext(pending.context);
      if (spanContext) {
        links.push({ context: spanContext });
        if (!sampled && spanContext.traceFlags & TraceFlags.SAMPLED) {
          parent = pending.context;
          sampled = true;
        }
      }
    }
    return tracer.startActiveSpan(
      'plants batch insert',
      { links, attributes: { 'plant_store.batch.size': batch.length } },
      parent,
      (span) => this.store(batch).finally(() => span.end()),
    );
  }

  private async store(batch: Pending[]): Promise<void> {
    // One plant per id goes to the database; the others of that id learn from it.
    const first = new Map<string, Pending>();
    const others: Pending[] = [];
    for (const pending of batch) {
      if (first.has(pending.plant.id)) {
        others.push(pending);
      } else {
        first.set(pending.plant.id, pending);
      }
    }

    let stored: Map<string, PlantRecord>;
    try {
      const inserted = await this.insert([...first.values()]);
      stored = new Map();
      const taken: string[] = [];
      for (const [id, pending] of first) {
        if (inserted.has(id)) {
          stored.set(id, pending.plant);
          pending.resolve({ created: true, stored: pending.plant });
        } else {
          taken.push(id);
        }
      }
      if (taken.length > 0) {
        for (const row of await this.select(taken)) {
          stored.set(row.id, row);
        }
      }
    } catch (error) {
      if (batch.length > 1 && !isDatabaseUnavailableError(error)) {
        await Promise.all(batch.map((pending) => this.run([pending])));
      } else {
        batch.forEach((pending) => pending.reject(error));
      }
      return;
    }

    const unseen: Pending[] = [];
    for (const pending of [...first.values(), ...others]) {
      const row = stored.get(pending.plant.id);
      if (!row) {
        unseen.push(pending);
      } else if (row !== pending.plant) {
        pending.resolve({ created: false, stored: row });
      }
    }
    this.retry(unseen);
  }

  private retry(unseen: Pending[]): void {
    for (const pending of unseen) {
      pending.attempts++;
      if (pending.attempts >= MAX_ATTEMPTS) {
        pending.reject(new Error(`Plant ${pending.plant.id} was neither inserted nor found`));
      }
    }
    const again = unseen.filter((pending) => pending.attempts < MAX_ATTEMPTS);
    if (again.length > 0) {
      this.queue.unshift(...again);
      this.dispatch();
    }
  }

  private async insert(plants: Pending[]): Promise<Set<string>> {
    const values = [
      plants.map(({ plant }) => plant.id),
      plants.map(({ plant }) => plant.name),
      plants.map(({ plant }) => plant.tag),
    ];
    const subscribers = this.options.subscribers ?? [];
    const { rows } = await this.database().query<{ id: string }>(
      subscribers.length === 0
        ? { name: 'plants-insert-batch', text: INSERT_BATCH_SQL, values }
        : {
            name: 'plants-insert-batch-with-events',
            text: INSERT_BATCH_WITH_EVENTS_SQL,
            values: [...values, subscribers],
          },
    );
    return new Set(rows.map((row) => row.id));
  }

  private async select(ids: string[]): Promise<PlantRecord[]> {
    const { rows } = await this.database().query<PlantRecord>({
      name: 'plants-select-stored',
      text: SELECT_STORED_SQL,
      values: [ids],
    });
    return rows;
  }
}
