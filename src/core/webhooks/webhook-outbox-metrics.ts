import { Injectable, Logger } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';

import { rawQueries } from '../database/raw-query.js';
import { Metrics } from '../metrics/metrics.js';

interface OutboxState {
  readonly pending: number;
  readonly dead: number;
  readonly oldest_pending_age_seconds: number;
}

/**
 * The outbox's state in one statement: pending rows are counted through the
 * due index, dead ones through theirs, so a scrape reads only those rows,
 * however many delivered ones the table keeps.
 */
const OUTBOX_STATE_SQL = `
  SELECT count(*)::float8 AS pending,
         coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest_pending_age_seconds,
         (SELECT count(*) FROM webhook_deliveries WHERE status = 'dead')::float8 AS dead
  FROM webhook_deliveries
  WHERE status = 'pending'`;

/** What the gauges say when the outbox cannot be read: not a number, rather than a reassuring zero. */
const UNKNOWN: OutboxState = { pending: NaN, dead: NaN, oldest_pending_age_seconds: NaN };

/**
 * Gauges of the outbox, read from the database when Prometheus scrapes: the
 * table is shared by every instance, so each reports the same figures, and
 * none has to keep them up to date between scrapes. A database that cannot
 * answer makes them NaN; the scrape itself never fails.
 */
@Injectable()
export class WebhookOutboxMetrics {
  private readonly logger = new Logger('Webhooks');
  private reading?: Promise<OutboxState>;

  constructor(
    private readonly dataSource: DataSource,
    metrics: Metrics,
  ) {
    const state = () => this.state();
    new Gauge({
      name: 'webhook_outbox_pending',
      help: 'Webhook deliveries (one per event and subscriber) waiting to be delivered',
      registers: [metrics.registry],
      async collect() {
        this.set((await state()).pending);
      },
    });
    new Gauge({
      name: 'webhook_outbox_dead',
      help: 'Webhook deliveries given up after their last attempt, kept for the retention period',
      registers: [metrics.registry],
      async collect() {
        this.set((await state()).dead);
      },
    });
    new Gauge({
      name: 'webhook_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest webhook delivery still waiting to be delivered; 0 when none waits',
      registers: [metrics.registry],
      async collect() {
        this.set((await state()).oldest_pending_age_seconds);
      },
    });
  }

  /**
   * The three gauges are collected together, at each scrape, and share one
   * statement: the first asks, the others join it while it runs.
   */
  private state(): Promise<OutboxState> {
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<OutboxState> {
    if (!this.dataSource.isInitialized) {
      return UNKNOWN;
    }
    try {
      const { rows } = await rawQueries(this.dataSource).query<OutboxState>({
        text: OUTBOX_STATE_SQL,
      });
      return rows[0];
    } catch (error) {
      this.logger.warn(
        `Could not read the outbox for the metrics: ${error instanceof Error ? error.message : String(error)}`,
      );
      return UNKNOWN;
    }
  }
}
