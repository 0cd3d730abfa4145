import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { inBatches, rawQueries } from '../database/raw-query.js';
import { PeriodicTask } from '../lifecycle/periodic-task.js';
import { describeError, subscriberLabel } from './webhook-subscribers.js';

/** Rows changed per statement: short statements, few row locks at a time. */
const SWEEP_BATCH = 1_000;

/** A longer lease another instance holds stays. */
const RENEW_SQL = `
  INSERT INTO webhook_subscribers (subscriber, expires_at)
  SELECT key, now() + make_interval(secs => $2::double precision / 1000) FROM unnest($1::text[]) AS key
  ON CONFLICT (subscriber) DO UPDATE
  SET expires_at = greatest(webhook_subscribers.expires_at, excluded.expires_at)`;

const UNLEASED_SQL = `
  SELECT DISTINCT delivery.subscriber FROM webhook_deliveries AS delivery
  WHERE delivery.status = 'pending'
    AND NOT EXISTS (
      SELECT FROM webhook_subscribers AS lease
      WHERE lease.subscriber = delivery.subscriber AND lease.expires_at > now()
    )`;

const LEASED_SQL = `SELECT subscriber FROM webhook_subscribers WHERE subscriber = ANY ($1::text[]) AND expires_at > now()`;

/** Updates a batch ($3) of the pending rows stored under subscriber $1 that `where` also selects. */
function pendingBatchSql(set: string, where = 'true'): string {
  return `
  WITH changed AS (
    UPDATE webhook_deliveries AS delivery SET ${set}
    FROM (
      SELECT id FROM webhook_deliveries
      WHERE status = 'pending' AND subscriber = $1 AND ${where}
      LIMIT $3
      FOR UPDATE SKIP LOCKED
    ) AS batch
    WHERE delivery.id = batch.id
    RETURNING 1
  )
  SELECT count(*)::integer AS count FROM changed`;
}

/** Pending rows an earlier release stored under the subscriber's whole URL ($1), moved to its key ($2). */
const REKEY_SQL = pendingBatchSql('subscriber = $2');

/**
 * The lease is checked again in the statement: an instance configured with the subscriber renews its
 * lease before it writes any row, so a row this statement sees was written after a lease it sees too.
 */
const UNSUBSCRIBE_SQL = pendingBatchSql(
  `status = 'unsubscribed', unsubscribed_at = now(), subscriber = $2`,
  'NOT EXISTS (SELECT FROM webhook_subscribers WHERE subscriber = $2 AND expires_at > now())',
);

const FORGET_SQL = `DELETE FROM webhook_subscribers WHERE expires_at <= now()`;

/**
 * Marks `unsubscribed` the pending events of a subscriber no instance holds a lease on: instances may
 * run different configurations for a while, so none decides alone (docs/webhooks.md#removed-subscribers).
 */
@Injectable()
export class WebhookSubscriberRegistry extends PeriodicTask implements OnApplicationBootstrap {
  private readonly logger = new Logger('Webhooks');
  private readonly reported = new Set<string>();
  private readonly keys: string[];

  constructor(
    private readonly dataSource: DataSource,
    @Inject(webhookConfig.KEY) private readonly config: WebhookConfig,
  ) {
    super();
    this.keys = config.subscribers.map(({ key }) => key);
  }

  /** Leases this instance's subscribers before it serves a request, so before it writes an event for any. */
  async onApplicationBootstrap(): Promise<void> {
    await this.renew().catch((error: unknown) => this.warn('renew the webhook subscribers’ leases', error));
    this.startRuns(this.config.subscriberLeaseMs / 3);
  }

  /** Answers how many events it marked, by subscriber. */
  async sweep(): Promise<Map<string, number>> {
    const db = rawQueries(this.dataSource);
    await db.query({ text: FORGET_SQL });
    const { rows: unleased } = await db.query<{ subscriber: string }>({ text: UNLEASED_SQL });
    const marked = new Map<string, number>();
    if (unleased.length === 0) {
      return marked;
    }
    const keys = unleased.map(({ subscriber }) => subscriberLabel(subscriber));
    const { rows: leased } = await db.query<{ subscriber: string }>({ text: LEASED_SQL, values: [keys] });
    const configured = new Set(leased.map(({ subscriber }) => subscriber));
    for (const [index, { subscriber }] of unleased.entries()) {
      const key = keys[index];
      if (configured.has(key)) {
        await inBatches(db, REKEY_SQL, [subscriber, key], SWEEP_BATCH);
      } else {
        marked.set(
          key,
          (marked.get(key) ?? 0) + (await inBatches(db, UNSUBSCRIBE_SQL, [subscriber, key], SWEEP_BATCH)),
        );
      }
    }
    return marked;
  }

  private async renew(): Promise<void> {
    if (this.keys.length > 0) {
      await rawQueries(this.dataSource).query({
        text: RENEW_SQL,
        values: [this.keys, this.config.subscriberLeaseMs],
      });
    }
  }

  protected async run(): Promise<void> {
    try {
      await this.renew();
      for (const [subscriber, count] of await this.sweep()) {
        if (count > 0 && !this.reported.has(subscriber)) {
          this.reported.add(subscriber);
          this.logger.warn(
            `Webhook subscriber ${subscriber} is configured on no instance any more: ${count} pending ` +
              'event(s) marked unsubscribed, not to be delivered, and kept for WEBHOOK_RETENTION_MS',
          );
        }
      }
    } catch (error) {
      this.warn('look for removed webhook subscribers', error);
    }
  }

  private warn(what: string, error: unknown): void {
    this.logger.warn(`Could not ${what}: ${describeError(error)}`);
  }
}
