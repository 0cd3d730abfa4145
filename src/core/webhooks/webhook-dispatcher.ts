import { AsyncLocalStorage } from 'node:async_hooks';

import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { DataSource } from 'typeorm';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { rawQueries, type Queryable } from '../database/raw-query.js';
import { Metrics } from '../metrics/metrics.js';
import { spanContextOf } from '../tracing/trace-context.js';
import { tracer } from '../tracing/tracer.js';
import {
  signWebhook,
  WEBHOOK_EVENT_TYPE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './webhook-signature.js';

interface Claimed {
  readonly id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly subscriber: string;
  readonly payload: string;
  readonly attempts: number;
  readonly traceparent: string | null;
}

/** Events claimed per round: each goes out at once, each with its own timeout. */
const CLAIM_BATCH = 32;

/**
 * Claims due events with `FOR UPDATE SKIP LOCKED`, so that instances sharing
 * the database never claim the same one, and leases them for an attempt's
 * timeout (plus a margin) by moving their due time, in the same statement.
 */
const CLAIM_SQL = `
  UPDATE webhook_deliveries AS delivery
  SET attempts = delivery.attempts + 1,
      next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
  FROM (
    SELECT id FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at <= now()
    ORDER BY next_attempt_at, id
    LIMIT $1
    FOR UPDATE SKIP LOCKED
  ) AS due
  WHERE delivery.id = due.id
  RETURNING delivery.id::text, delivery.event_id, delivery.event_type, delivery.subscriber, delivery.payload,
            delivery.attempts, delivery.traceparent`;

/**
 * Delivers the outbox to the subscribers, in the background, at least once:
 * a 2xx answer marks an event delivered; anything else (an error status, a
 * timeout, a refused connection) schedules another attempt after an
 * exponential backoff with jitter, until the cap, after which the event is
 * marked dead, logged and counted. A database that is down only delays it.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private nudged = false;
  /**
   * Runs a function in the context the dispatcher was made in, outside any
   * request: a round that a create's nudge starts is not that request's
   * work, and its log lines must not carry the request's id.
   */
  private readonly outsideRequests = AsyncLocalStorage.snapshot();

  constructor(
    private readonly dataSource: DataSource,
    @Inject(webhookConfig.KEY) private readonly config: WebhookConfig,
    private readonly metrics: Metrics,
  ) {}

  get enabled(): boolean {
    return this.config.urls.length > 0;
  }

  onApplicationBootstrap(): void {
    if (this.enabled) {
      this.logger.log(`Delivering webhook events to ${this.config.urls.length} subscriber(s)`);
      this.schedule(0);
    }
  }

  private pool(): Queryable {
    return rawQueries(this.dataSource);
  }

  /** An event was committed to the outbox: look at it now rather than at the next tick. */
  nudge(): void {
    if (this.enabled && !this.stopped) {
      this.nudged = true;
      if (!this.running) {
        this.schedule(0);
      }
    }
  }

  /** Stops claiming, and lets the attempts in flight finish (each is bounded by its timeout). */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    this.outsideRequests(() => this.setTimer(delayMs));
  }

  private setTimer(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.round().finally(() => {
        this.running = undefined;
        if (!this.stopped) {
          this.schedule(this.nudged ? 0 : this.config.pollIntervalMs);
        }
      });
    }, delayMs);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    this.nudged = false;
    let claimed: Claimed[];
    try {
      ({ rows: claimed } = await this.pool().query<Claimed>({
        text: CLAIM_SQL,
        values: [CLAIM_BATCH, this.config.timeoutMs + 5_000],
      }));
    } catch (error) {
      this.logger.warn(
        `Could not read the outbox: ${error instanceof Error ? error.message : String(error)}`,
      );
      return;
    }
    await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
    if (claimed.length === CLAIM_BATCH) {
      this.nudged = true;
    }
  }

  private async attempt(delivery: Claimed): Promise<void> {
    const failure = await this.send(delivery);
    try {
      if (failure === undefined) {
        await this.pool().query({
          text: `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), last_error = NULL WHERE id = $1`,
          values: [delivery.id],
        });
        this.metrics.webhookDeliveries.inc({ outcome: 'delivered' });
      } else if (delivery.attempts >= this.config.maxAttempts) {
        await this.pool().query({
          text: `UPDATE webhook_deliveries SET status = 'dead', dead_at = now(), last_error = $2 WHERE id = $1`,
          values: [delivery.id, failure],
        });
        this.metrics.webhookDeliveries.inc({ outcome: 'dead' });
        this.logger.error(
          `Webhook event ${delivery.event_id} (${delivery.event_type}) to ${describeSubscriber(delivery.subscriber)} is dead after ${delivery.attempts} attempts: ${failure}`,
        );
      } else {
        await this.pool().query({
          text: `UPDATE webhook_deliveries
                 SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), last_error = $3
                 WHERE id = $1`,
          values: [delivery.id, this.backoffMs(delivery.attempts), failure],
        });
        this.metrics.webhookDeliveries.inc({ outcome: 'failed' });
      }
    } catch (error) {
      // The lease runs out and the event is claimed again: delivered at least once.
      this.logger.warn(
        `Could not record a delivery attempt: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /**
   * One attempt; answers why it failed, or undefined when the subscriber took
   * the event. Each attempt is a span of its own, whose context goes with the
   * request (`traceparent`), so that the subscriber's work joins its trace;
   * it links to the span of the change that stored the event, as
   * OpenTelemetry's messaging conventions link a consumer to its producer,
   * so that a delivery leads back to the request that caused it.
   */
  private send(delivery: Claimed): Promise<string | undefined> {
    const subscriber = URL.parse(delivery.subscriber);
    const attributes = {
      'http.request.method': 'POST',
      // Without what may be secret in the URL, as in the log.
      'url.full': subscriber ? `${subscriber.origin}${subscriber.pathname}` : undefined,
      'server.address': subscriber?.hostname,
      'server.port': subscriber
        ? Number(subscriber.port) || (subscriber.protocol === 'https:' ? 443 : 80)
        : undefined,
      'webhook.event.id': delivery.event_id,
      'webhook.event.type': delivery.event_type,
      'webhook.attempt': delivery.attempts,
    };
    const producer = spanContextOf(delivery.traceparent);
    return tracer.startActiveSpan(
      `webhook ${delivery.event_type}`,
      { kind: SpanKind.CLIENT, attributes, links: producer ? [{ context: producer }] : [] },
      async (span) => {
        let failure: string | undefined;
        try {
          const timestamp = Math.floor(Date.now() / 1000);
          const headers: Record<string, string> = {
            'Content-Type': 'application/json',
            [WEBHOOK_ID_HEADER]: delivery.event_id,
            [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
            [WEBHOOK_SIGNATURE_HEADER]: signWebhook(
              this.config.signingKeys,
              delivery.event_id,
              timestamp,
              delivery.payload,
            ),
            [WEBHOOK_EVENT_TYPE_HEADER]: delivery.event_type,
          };
          propagation.inject(context.active(), headers);
          const response = await fetch(delivery.subscriber, {
            method: 'POST',
            headers,
            body: delivery.payload,
            redirect: 'manual',
            signal: AbortSignal.timeout(this.config.timeoutMs),
          });
          await response.body?.cancel();
          span.setAttribute('http.response.status_code', response.status);
          failure = response.ok ? undefined : `HTTP ${response.status}`;
        } catch (error) {
          const cause = (error as { cause?: { code?: string } }).cause?.code;
          failure = cause ?? (error instanceof Error ? error.message : String(error));
        }
        if (failure !== undefined) {
          span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute('error.type', failure);
        }
        span.end();
        return failure;
      },
    );
  }

  /** base × 2^(attempt-1), at most max, then a random half of it or more: failing receivers are not hit in step. */
  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.config.backoffMaxMs, this.config.backoffBaseMs * 2 ** (attempt - 1));
    return Math.round(ceiling * (0.5 + Math.random() / 2));
  }
}

/** A subscriber's address without what may be secret in it (credentials, query string). */
function describeSubscriber(url: string): string {
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
}
