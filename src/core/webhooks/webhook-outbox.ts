import { randomUUID } from 'node:crypto';

import { Inject, Injectable } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import type { EntityManager, QueryRunner } from 'typeorm';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { stringifyJson } from '../http/json.js';
import { traceparentOf } from '../tracing/trace-context.js';

/**
 * `<resource>.<event>` in lower case (`plant.created`, `order.shipped`), at
 * most 64 characters (the column's size): what receivers switch on, so it is
 * kept to a form that is safe in a header and in a metric label.
 */
const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/;
const MAX_EVENT_TYPE_LENGTH = 64;

/** What runs a statement in the caller's transaction: its EntityManager, or its QueryRunner. */
export type TransactionQuery = Pick<EntityManager, 'query'> | Pick<QueryRunner, 'query'>;

/** One row per subscriber, all under the same event id, the subscribers being the statement's array parameter. */
const ENQUEUE_SQL = `
  INSERT INTO webhook_deliveries (event_id, event_type, subscriber, payload, traceparent)
  SELECT $1::uuid, $2, subscriber.url, $3, $5
  FROM unnest($4::text[]) AS subscriber (url)`;

/**
 * How a resource announces an event to the webhook subscribers: in its own
 * transaction, so that the event is recorded if and only if the change it
 * announces commits; the dispatcher delivers it afterwards, at least once.
 *
 * ```ts
 * await dataSource.transaction(async (manager) => {
 *   await manager.save(order);
 *   await outbox.enqueue(manager, 'order.shipped', { id: order.id });
 * });
 * dispatcher.nudge(); // committed: deliver now rather than at the next poll
 * ```
 *
 * A statement that inserts many rows at once announces each of them in
 * itself, with the CTE `rowEventsSql` renders (as `EntityWriter` does for
 * `plant.created`), where a statement of its own would cost a round trip.
 *
 * Each event carries the trace context of the change it announces (its
 * `traceparent`, when traced), as OpenTelemetry's messaging conventions have
 * a producer do: each delivery's span links back to it.
 */
@Injectable()
export class WebhookOutbox {
  constructor(@Inject(webhookConfig.KEY) private readonly config: WebhookConfig) {}

  /** Who is told of every event: the value of the parameter a `rowEventsSql` CTE names. */
  get subscribers(): readonly string[] {
    return this.config.urls;
  }

  /**
   * A CTE (`<name> AS (…)`, for a statement's `WITH`) that records one event
   * per row of `rows` (a CTE of the same statement, say the rows an INSERT
   * returned) for every subscriber, all the rows of an event under one new
   * id: in the same statement, so the same transaction, as the rows. The
   * payload is a JSON object of the given members, a `bigint` as a number
   * with all its digits, a null member left out. The subscribers are the
   * statement's parameter `subscribersParameter` (give it `subscribers`);
   * each row's trace context is what `traceparent` says (null when unset).
   * The text depends on its arguments alone, not on the configuration.
   */
  rowEventsSql(name: string, events: RowEvents): string {
    checkEventType(events.eventType);
    const members = events.payload.map(([key, column]) => `${literal(key)}, ${column}`).join(', ');
    return [
      `${name} AS (`,
      `  INSERT INTO webhook_deliveries (event_id, event_type, subscriber, payload, traceparent)`,
      `  SELECT event.id, ${literal(events.eventType)}, subscriber.url, event.payload, event.traceparent`,
      `  FROM (`,
      // gen_random_uuid() is volatile: the subquery is not flattened, so each row's subscribers share its id.
      `    SELECT gen_random_uuid() AS id, json_strip_nulls(json_build_object(${members}))::text AS payload,`,
      `      ${events.traceparent ?? 'NULL'}::text AS traceparent`,
      `    FROM ${events.rows}`,
      `  ) AS event`,
      `  CROSS JOIN unnest(${events.subscribersParameter}::text[]) AS subscriber (url)`,
      `)`,
    ].join('\n');
  }

  /**
   * Records the event for every subscriber, and answers its id (the
   * `webhook-id` receivers de-duplicate on), or undefined when there is no
   * subscriber: then nothing is written. The payload is the body exactly as
   * it will be sent, as JSON (a `bigint` as a number with all its digits).
   */
  async enqueue(
    transaction: TransactionQuery,
    eventType: string,
    payload: unknown,
  ): Promise<string | undefined> {
    checkEventType(eventType);
    const body = stringifyJson(payload) as string | undefined;
    if (body === undefined) {
      throw new TypeError(`The payload of a ${eventType} event is not JSON`);
    }
    if (this.config.urls.length === 0) {
      return undefined;
    }
    const eventId = randomUUID();
    await transaction.query(ENQUEUE_SQL, [
      eventId,
      eventType,
      body,
      this.config.urls,
      traceparentOf(context.active()),
    ]);
    return eventId;
  }
}

/** How a statement that inserts rows has each of them announced (see `WebhookOutbox.rowEventsSql`). */
export interface RowEvents {
  /** `<resource>.<event>`, as for `enqueue`. */
  readonly eventType: string;
  /** What holds the rows, one event each: a CTE of the statement. */
  readonly rows: string;
  /** The payload's members: each one's JSON key, and the column of `rows` (quoted) that gives its value. */
  readonly payload: ReadonlyArray<readonly [key: string, column: string]>;
  /** The statement's parameter that carries the subscribers: `$4`. */
  readonly subscribersParameter: string;
  /** Each row's `traceparent`: a column of `rows`, or a parameter for a row alone (`$5`). Unset: none. */
  readonly traceparent?: string;
}

function checkEventType(eventType: string): void {
  if (eventType.length > MAX_EVENT_TYPE_LENGTH || !EVENT_TYPE_PATTERN.test(eventType)) {
    throw new TypeError(`Not an event type (<resource>.<event>, lower case): ${eventType}`);
  }
}

/** A string as an SQL literal. */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
