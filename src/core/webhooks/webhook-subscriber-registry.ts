import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { PeriodicTask } from '../lifecycle/periodic-task.js';
import { inBatches } from '../database/in-batches.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookSubscriberLeasesRepository } from './webhook-subscriber-leases.repository.js';
import { describeError, subscriberLabel } from './webhook-subscribers.js';

/** Rows changed per statement: short statements, few row locks at a time. */
const SWEEP_BATCH = 1_000;

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
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly leases: WebhookSubscriberLeasesRepository,
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
    await this.leases.forgetExpired();
    const unleased = await this.deliveries.unleasedSubscribers();
    const marked = new Map<string, number>();
    if (unleased.length === 0) {
      return marked;
    }
    const keys = unleased.map(subscriberLabel);
    const configured = new Set(await this.leases.leased(keys));
    for (const [index, stored] of unleased.entries()) {
      const key = keys[index];
      if (configured.has(key)) {
        await inBatches(SWEEP_BATCH, (size) => this.deliveries.rekeyPending(stored, key, size));
      } else {
        const count = await inBatches(SWEEP_BATCH, (size) =>
          this.deliveries.unsubscribePending(stored, key, size),
        );
        marked.set(key, (marked.get(key) ?? 0) + count);
      }
    }
    return marked;
  }

  private async renew(): Promise<void> {
    if (this.keys.length > 0) {
      await this.leases.renew(this.keys, this.config.subscriberLeaseMs);
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
