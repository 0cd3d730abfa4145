import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { Metrics } from '../metrics/metrics.js';
import { type BacklogRow, WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { subscriberGauge } from './webhook-delivery-metrics.js';
import { describeError, subscriberLabel } from './webhook-subscribers.js';

interface Backlog {
  readonly pending: number;
  readonly dead: number;
  readonly unsubscribed: number;
  readonly oldestPendingAgeSeconds: number;
}

/** `/metrics` may be public (on the API's port outside production): a call must not cost a statement each. */
export const OUTBOX_METRICS_CACHE_MS = 1_000;

const EMPTY: Backlog = { pending: 0, dead: 0, unsubscribed: 0, oldestPendingAgeSeconds: 0 };
/** What the gauges say when the outbox cannot be read: not a number, rather than a reassuring zero. */
const UNKNOWN: Backlog = { pending: NaN, dead: NaN, unsubscribed: NaN, oldestPendingAgeSeconds: NaN };

/** The outbox's gauges by subscriber, read at a scrape, once a second at most (docs/webhooks.md#metrics). */
@Injectable()
export class WebhookOutboxMetrics {
  private readonly logger = new Logger('Webhooks');
  /** The configured subscribers, and any the outbox has held since the start. */
  private readonly known: Set<string>;
  private recent?: { readonly at: number; readonly reading: Promise<Map<string, Backlog>> };

  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(webhookConfig.KEY) config: WebhookConfig,
    metrics: Metrics,
  ) {
    this.known = new Set(config.subscribers.map(({ key }) => key));
    const gauge = (name: string, help: string, value: (backlog: Backlog) => number) =>
      subscriberGauge(metrics.registry, name, help, () => this.state(), value);
    gauge(
      'webhook_outbox_pending',
      'Webhook deliveries (one per event and subscriber) waiting to be delivered, by subscriber',
      (backlog) => backlog.pending,
    );
    gauge(
      'webhook_outbox_dead',
      'Webhook deliveries given up after their last attempt, kept for the retention period, by subscriber',
      (backlog) => backlog.dead,
    );
    gauge(
      'webhook_outbox_unsubscribed',
      'Webhook deliveries still pending when their subscriber was configured on no instance any more: never delivered, kept for the retention period',
      (backlog) => backlog.unsubscribed,
    );
    gauge(
      'webhook_outbox_oldest_pending_age_seconds',
      "Age of the subscriber's oldest webhook delivery still waiting to be delivered; 0 when none waits",
      (backlog) => backlog.oldestPendingAgeSeconds,
    );
  }

  /** Scrapes arriving while a reading runs wait for it rather than send their own. */
  private state(): Promise<Map<string, Backlog>> {
    const now = Date.now();
    if (!this.recent || now - this.recent.at >= OUTBOX_METRICS_CACHE_MS) {
      this.recent = { at: now, reading: this.read() };
    }
    return this.recent.reading;
  }

  private async read(): Promise<Map<string, Backlog>> {
    const unknown = () => new Map([...this.known].map((subscriber) => [subscriber, UNKNOWN]));
    if (!this.dataSource.isInitialized) {
      return unknown();
    }
    let rows: BacklogRow[];
    try {
      rows = await this.deliveries.backlog();
    } catch (error) {
      this.logger.warn(`Could not read the outbox for the metrics: ${describeError(error)}`);
      return unknown();
    }
    const backlogs = new Map([...this.known].map((subscriber) => [subscriber, { ...EMPTY }]));
    for (const row of rows) {
      // Rows written before subscribers were stored by key hold a whole URL: never a label as it is.
      const subscriber = subscriberLabel(row.subscriber);
      this.known.add(subscriber);
      const backlog = backlogs.get(subscriber) ?? { ...EMPTY };
      backlogs.set(
        subscriber,
        row.status === 'pending'
          ? {
              ...backlog,
              pending: backlog.pending + row.count,
              oldestPendingAgeSeconds: Math.max(backlog.oldestPendingAgeSeconds, row.oldestAgeSeconds),
            }
          : { ...backlog, [row.status]: backlog[row.status] + row.count },
      );
    }
    return backlogs;
  }
}
