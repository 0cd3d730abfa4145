import { Inject, Injectable } from '@nestjs/common';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { inBatches } from '../database/in-batches.js';
import { type FinishedStatus, WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';

/** Rows deleted per statement: each statement is short, and holds few row locks. */
const CLEANUP_BATCH = 1_000;

const FINISHED: readonly FinishedStatus[] = ['delivered', 'dead', 'unsubscribed'];

/**
 * Deletes the rows past their retention (docs/webhooks.md#retention), whether or not this instance
 * delivers: rows written while subscribers were configured outlive a configuration without them. The
 * retention task runs it.
 */
@Injectable()
export class WebhookOutboxCleanup {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(webhookConfig.KEY) private readonly config: WebhookConfig,
  ) {}

  get isEnabled(): boolean {
    return this.config.retentionMs > 0;
  }

  /** Answers how many rows it deleted; `stop()` ends it between batches. */
  async deleteExpired(stop: () => boolean = () => false): Promise<number> {
    if (!this.isEnabled) {
      return 0;
    }
    let deleted = 0;
    // `SKIP LOCKED`: every instance runs this at once without waiting for the others, or for a re-queue.
    for (const status of FINISHED) {
      deleted += await inBatches(
        CLEANUP_BATCH,
        (size) => this.deliveries.deleteFinished(status, this.config.retentionMs, size),
        stop,
      );
    }
    return deleted;
  }
}
