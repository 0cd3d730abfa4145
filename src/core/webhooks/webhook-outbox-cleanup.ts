import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { PeriodicTask } from '../lifecycle/periodic-task.js';
import { inBatches } from './in-batches.js';
import { type FinishedStatus, WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { describeError } from './webhook-subscribers.js';

/** Rows deleted per statement: each statement is short, and holds few row locks. */
const CLEANUP_BATCH = 1_000;

const FINISHED: readonly FinishedStatus[] = ['delivered', 'dead', 'unsubscribed'];

/**
 * Deletes the rows past their retention (docs/webhooks.md#retention), whether or not this instance
 * delivers: rows written while subscribers were configured outlive a configuration without them.
 */
@Injectable()
export class WebhookOutboxCleanup extends PeriodicTask implements OnApplicationBootstrap {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(webhookConfig.KEY) private readonly config: WebhookConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    if (this.config.retentionMs > 0) {
      // The first run comes at a random point of the first interval: replicas started together
      // spread out, and one restarted more often than the interval still gets to run.
      this.startRuns(this.config.cleanupIntervalMs, Math.random() * this.config.cleanupIntervalMs);
    }
  }

  /** Answers how many rows it deleted; shutdown stops it between batches. */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    // `SKIP LOCKED`: every instance runs this at once without waiting for the others, or for a re-queue.
    for (const status of FINISHED) {
      deleted += await inBatches(
        CLEANUP_BATCH,
        (size) => this.deliveries.deleteFinished(status, this.config.retentionMs, size),
        () => this.stopped,
      );
    }
    return deleted;
  }

  protected async run(): Promise<void> {
    try {
      const deleted = await this.deleteExpired();
      if (deleted > 0) {
        this.logger.log(
          `Deleted ${deleted} delivered, dead or unsubscribed webhook deliveries past their retention`,
        );
      }
    } catch (error) {
      this.logger.warn(`Could not clean up the outbox: ${describeError(error)}`);
    }
  }
}
