import { AsyncLocalStorage } from 'node:async_hooks';

import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { Metrics } from '../metrics/metrics.js';
import { type CircuitAttempt, jitteredBackoffMs, SubscriberCircuit } from './subscriber-circuit.js';
import { WebhookDeliveryMetrics } from './webhook-delivery-metrics.js';
import { type ClaimedDelivery, WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { type Attempt, sendWebhook } from './webhook-sender.js';
import { describeError } from './webhook-subscribers.js';

/** How long past an attempt's timeout its claim holds: then another instance may take the event up. */
const LEASE_MARGIN_MS = 5_000;

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
  private readonly deliveryMetrics: WebhookDeliveryMetrics;
  private readonly attempts = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private claiming?: Promise<void>;
  private claimAgain = false;
  private stopped = false;
  /** A claim that a create's commit starts is not that request's work: its log lines carry no request id. */
  private readonly outsideRequests = AsyncLocalStorage.snapshot();

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
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
    this.deliveryMetrics = new WebhookDeliveryMetrics(
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
    // `SKIP LOCKED`: instances sharing the database never claim the same event. Each subscriber's
    // claim is its own statement, limited to its room, and its attempts start as it answers.
    try {
      for (const { lane, room } of wanted) {
        const claimed = await this.deliveries.claim(
          lane.subscriber,
          room,
          this.config.timeoutMs + LEASE_MARGIN_MS,
        );
        for (const delivery of claimed) {
          this.start(lane, delivery);
        }
      }
    } catch (error) {
      this.logger.warn(`Could not read the outbox: ${describeError(error)}`);
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
    try {
      if (failure === undefined) {
        await this.deliveries.markDelivered(delivery.id);
        this.deliveryMetrics.count(label, 'delivered');
      } else if (delivery.attempts >= this.config.maxAttempts) {
        await this.deliveries.markDead(delivery.id, failure);
        this.deliveryMetrics.count(label, 'dead');
        this.logger.error(
          `Webhook event ${delivery.eventId} (${delivery.eventType}) to ${label} is dead after ${delivery.attempts} attempts: ${failure}`,
        );
      } else {
        await this.deliveries.retryLater(delivery.id, this.backoffMs(delivery.attempts), failure);
        this.deliveryMetrics.count(label, 'failed');
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
