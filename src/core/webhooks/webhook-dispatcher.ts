import { AsyncLocalStorage } from 'node:async_hooks';

import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DataSource } from 'typeorm';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { rawQueries } from '../database/raw-query.js';
import { Metrics } from '../metrics/metrics.js';
import { type CircuitAttempt, jitteredBackoffMs, SubscriberCircuit } from './subscriber-circuit.js';
import { WebhookDeliveryMetrics } from './webhook-delivery-metrics.js';
import { type Attempt, type ClaimedDelivery, sendWebhook } from './webhook-sender.js';
import { describeError } from './webhook-subscribers.js';

/** How long past an attempt's timeout its claim holds: then another instance may take the event up. */
const LEASE_MARGIN_MS = 5_000;

/**
 * `SKIP LOCKED`: instances sharing the database never claim the same event. The claim leases it by
 * moving its due time in the same statement. Each subscriber's claim is its own, limited to its room.
 */
const CLAIM_SQL = `
  UPDATE webhook_deliveries AS delivery
  SET attempts = delivery.attempts + 1,
      next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
  FROM (
    SELECT due.id
    FROM unnest($1::text[], $2::integer[]) AS lane (subscriber, room)
    CROSS JOIN LATERAL (
      SELECT id FROM webhook_deliveries
      WHERE status = 'pending' AND subscriber = lane.subscriber AND next_attempt_at <= now()
      ORDER BY next_attempt_at, id
      LIMIT lane.room
      FOR UPDATE SKIP LOCKED
    ) AS due
  ) AS claimed
  WHERE delivery.id = claimed.id
  RETURNING delivery.id::text, delivery.event_id, delivery.event_type, delivery.subscriber, delivery.payload,
            delivery.attempts, delivery.traceparent`;

interface Lane {
  /** Its key, as the outbox's `subscriber` column holds it. */
  readonly subscriber: string;
  readonly attempt: Attempt;
  readonly circuit: SubscriberCircuit;
  inFlight: number;
}

/**
 * Delivers the outbox at least once, in a rolling pool shared out by subscriber
 * (docs/webhooks.md#one-subscriber-cannot-hold-up-another).
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly lanes: ReadonlyMap<string, Lane>;
  private readonly deliveries: WebhookDeliveryMetrics;
  private readonly attempts = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private claiming?: Promise<void>;
  private claimAgain = false;
  private stopped = false;
  /** A claim that a create's commit starts is not that request's work: its log lines carry no request id. */
  private readonly outsideRequests = AsyncLocalStorage.snapshot();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(webhookConfig.KEY) private readonly config: WebhookConfig,
    metrics: Metrics,
  ) {
    const circuit = {
      failures: config.circuitFailures,
      pauseMs: config.backoffBaseMs,
      maxPauseMs: config.backoffMaxMs,
    };
    this.lanes = new Map(
      config.subscribers.map(({ key, url, authorization }) => [
        key,
        {
          subscriber: key,
          attempt: {
            url,
            authorization,
            label: key,
            signingKeys: config.signingKeys,
            timeoutMs: config.timeoutMs,
          },
          circuit: new SubscriberCircuit(circuit),
          inFlight: 0,
        },
      ]),
    );
    const lanes = [...this.lanes.values()];
    this.deliveries = new WebhookDeliveryMetrics(
      metrics.registry,
      lanes.map((lane) => lane.attempt.label),
      () =>
        lanes.map((lane) => ({
          label: lane.attempt.label,
          inFlight: lane.inFlight,
          state: lane.circuit.state,
        })),
    );
  }

  get enabled(): boolean {
    return this.lanes.size > 0;
  }

  onApplicationBootstrap(): void {
    if (this.enabled) {
      this.logger.log(`Delivering webhook events to ${this.lanes.size} subscriber(s)`);
      this.outsideRequests(() => {
        this.timer = setInterval(() => this.fill(), this.config.pollIntervalMs).unref();
      });
      this.fill();
    }
  }

  /** Looks at the outbox now rather than at the next poll. */
  nudge(): void {
    this.fill();
  }

  /** Lets the attempts in flight finish: each is bounded by its timeout. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.claiming;
    await Promise.all(this.attempts);
  }

  /** One claim runs at a time; calls meanwhile make one more claim after it, for all of them. */
  private fill(): void {
    if (!this.enabled || this.stopped) {
      return;
    }
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.outsideRequests(() => this.claim()).finally(() => {
      this.claiming = undefined;
      if (this.claimAgain) {
        this.claimAgain = false;
        this.fill();
      }
    });
  }

  private async claim(): Promise<void> {
    const wanted = [...this.lanes.values()]
      .map((lane) => ({ lane, room: lane.circuit.room(lane.inFlight, this.config.subscriberConcurrency) }))
      .filter(({ room }) => room > 0);
    if (wanted.length === 0) {
      return;
    }
    let claimed: ClaimedDelivery[];
    try {
      ({ rows: claimed } = await rawQueries(this.dataSource).query<ClaimedDelivery>({
        text: CLAIM_SQL,
        values: [
          wanted.map(({ lane }) => lane.subscriber),
          wanted.map(({ room }) => room),
          this.config.timeoutMs + LEASE_MARGIN_MS,
        ],
      }));
    } catch (error) {
      this.logger.warn(`Could not read the outbox: ${describeError(error)}`);
      return;
    }
    for (const delivery of claimed) {
      this.start(this.lanes.get(delivery.subscriber)!, delivery);
    }
  }

  private start(lane: Lane, delivery: ClaimedDelivery): void {
    lane.inFlight += 1;
    const attempt = this.attempt(lane, delivery, lane.circuit.begin()).finally(() => {
      lane.inFlight -= 1;
      this.attempts.delete(attempt);
      this.fill();
    });
    this.attempts.add(attempt);
  }

  private async attempt(lane: Lane, delivery: ClaimedDelivery, begun: CircuitAttempt): Promise<void> {
    const failure = await sendWebhook(delivery, lane.attempt);
    const label = lane.attempt.label;
    if (failure === undefined) {
      if (lane.circuit.succeeded()) {
        this.logger.log(`Webhook subscriber ${label} takes events again: its backlog is delivered`);
      }
    } else if (lane.circuit.failed(begun)) {
      this.logger.warn(
        `Webhook subscriber ${label} failed ${this.config.circuitFailures} attempts in a row (the last: ${failure}): ` +
          'its events wait, and one is tried after each pause',
      );
    }
    const db = rawQueries(this.dataSource);
    try {
      if (failure === undefined) {
        await db.query({
          text: `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), last_error = NULL WHERE id = $1`,
          values: [delivery.id],
        });
        this.deliveries.count(label, 'delivered');
      } else if (delivery.attempts >= this.config.maxAttempts) {
        await db.query({
          text: `UPDATE webhook_deliveries SET status = 'dead', dead_at = now(), last_error = $2 WHERE id = $1`,
          values: [delivery.id, failure],
        });
        this.deliveries.count(label, 'dead');
        this.logger.error(
          `Webhook event ${delivery.event_id} (${delivery.event_type}) to ${label} is dead after ${delivery.attempts} attempts: ${failure}`,
        );
      } else {
        await db.query({
          text: `UPDATE webhook_deliveries
                 SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), last_error = $3
                 WHERE id = $1`,
          values: [delivery.id, this.backoffMs(delivery.attempts), failure],
        });
        this.deliveries.count(label, 'failed');
      }
    } catch (error) {
      // The lease runs out and the event is claimed again: delivered at least once.
      this.logger.warn(`Could not record a delivery attempt: ${describeError(error)}`);
    }
  }

  private backoffMs(attempt: number): number {
    return jitteredBackoffMs(this.config.backoffBaseMs, this.config.backoffMaxMs, attempt - 1);
  }
}
