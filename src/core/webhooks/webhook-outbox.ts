import { randomUUID } from 'node:crypto';

import { Inject, Injectable } from '@nestjs/common';
import { type Context, context } from '@opentelemetry/api';
import {
  DataSource,
  type EntityManager,
  type EntitySubscriberInterface,
  type TransactionCommitEvent,
} from 'typeorm';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { stringifyJson } from '../http/json.js';
import { traceparentOf } from '../tracing/trace-context.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

/** `<resource>.<event>` in lower case, at most the column's size: safe in a header and a metric label. */
const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$/;
const MAX_EVENT_TYPE_LENGTH = 64;

/** The `QueryRunner.data` key of a transaction that recorded events: delivery starts once it commits. */
const RECORDED_EVENTS = 'webhookOutboxRecorded';

export interface WebhookEvent {
  readonly type: string;
  /** The body sent, as JSON (a `bigint` as a number with all its digits). */
  readonly payload: unknown;
  /** The trace context of the change announced, when not the active one (a batch's caller's). */
  readonly context?: Context;
}

/**
 * Records events in the transaction of the change they announce
 * (docs/webhooks.md#announcing-the-events-of-another-resource), with its `traceparent`, as
 * OpenTelemetry's messaging conventions have a producer do: each delivery's span links back to it.
 */
@Injectable()
export class WebhookOutbox implements EntitySubscriberInterface {
  constructor(
    @Inject(webhookConfig.KEY) private readonly config: WebhookConfig,
    private readonly dispatcher: WebhookDispatcher,
    private readonly deliveries: WebhookDeliveriesRepository,
    dataSource: DataSource,
  ) {
    // A TypeORM subscriber, the way Nest's TypeORM recipe registers one: told of every commit.
    dataSource.subscribers.push(this);
  }

  get hasSubscribers(): boolean {
    return this.config.subscribers.length > 0;
  }

  /** Answers the event's id, the `webhook-id`; undefined, and nothing written, without subscribers. */
  async enqueue(manager: EntityManager, type: string, payload: unknown): Promise<string | undefined> {
    const [id] = await this.enqueueAll(manager, [{ type, payload }]);
    return id;
  }

  /** Records several events in one statement; answers their ids, in order (none without subscribers). */
  async enqueueAll(manager: EntityManager, events: readonly WebhookEvent[]): Promise<string[]> {
    const bodies = events.map(({ type, payload }) => {
      checkEventType(type);
      const body = stringifyJson(payload) as string | undefined;
      if (body === undefined) {
        throw new TypeError(`The payload of a ${type} event is not JSON`);
      }
      return body;
    });
    if (!this.hasSubscribers || events.length === 0) {
      return [];
    }
    const active = context.active();
    const ids = events.map(() => randomUUID());
    const rows = events.flatMap((event, index) => {
      const traceparent = traceparentOf(event.context ?? active);
      return this.config.subscribers.map(({ key }) => ({
        eventId: ids[index],
        eventType: event.type,
        subscriber: key,
        payload: bodies[index],
        traceparent,
      }));
    });
    await this.deliveries.record(manager, rows);
    const transaction = manager.queryRunner;
    if (transaction?.isTransactionActive) {
      transaction.data[RECORDED_EVENTS] = true;
    } else {
      this.dispatcher.nudge();
    }
    return ids;
  }

  /** A transaction that recorded events has committed: deliver them now rather than at the next poll. */
  afterTransactionCommit({ queryRunner }: TransactionCommitEvent): void {
    if (queryRunner.data[RECORDED_EVENTS] === true && !queryRunner.isTransactionActive) {
      queryRunner.data[RECORDED_EVENTS] = false;
      this.dispatcher.nudge();
    }
  }
}

function checkEventType(eventType: string): void {
  if (eventType.length > MAX_EVENT_TYPE_LENGTH || !EVENT_TYPE_PATTERN.test(eventType)) {
    throw new TypeError(`Not an event type (<resource>.<event>, lower case): ${eventType}`);
  }
}
