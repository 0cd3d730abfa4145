import { randomUUID } from 'node:crypto';

import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager, QueryRunner } from 'typeorm';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { stringifyJson } from '../http/json.js';

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
  INSERT INTO webhook_deliveries (event_id, event_type, subscriber, payload)
  SELECT $1::uuid, $2, subscriber.url, $3
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
 * The plants do the same for `plant.created` inside their batched INSERT
 * (PlantWriter), where a separate statement would cost a round trip per batch.
 */
@Injectable()
export class WebhookOutbox {
  constructor(@Inject(webhookConfig.KEY) private readonly config: WebhookConfig) {}

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
    if (eventType.length > MAX_EVENT_TYPE_LENGTH || !EVENT_TYPE_PATTERN.test(eventType)) {
      throw new TypeError(`Not an event type (<resource>.<event>, lower case): ${eventType}`);
    }
    const body = stringifyJson(payload) as string | undefined;
    if (body === undefined) {
      throw new TypeError(`The payload of a ${eventType} event is not JSON`);
    }
    if (this.config.urls.length === 0) {
      return undefined;
    }
    const eventId = randomUUID();
    await transaction.query(ENQUEUE_SQL, [eventId, eventType, body, this.config.urls]);
    return eventId;
  }
}
