import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { inBatches, rawQueries } from '../database/raw-query.js';
import { PeriodicTask } from '../lifecycle/periodic-task.js';
import { describeError } from './webhook-subscribers.js';

/** Rows deleted per statement: each statement is short, and holds few row locks. */
const CLEANUP_BATCH = 1_000;

/** `SKIP LOCKED`: every instance runs this at once without waiting for the others, or for a re-queue. */
function deleteBatchSql(
  status: 'delivered' | 'dead' | 'unsubscribed',
  column: 'delivered_at' | 'dead_at' | 'unsubscribed_at',
): string {
  return `
    WITH deleted AS (
      DELETE FROM webhook_deliveries
      WHERE id IN (
        SELECT id FROM webhook_deliveries
        WHERE status = '${status}' AND ${column} < now() - make_interval(secs => $1::double precision / 1000)
        LIMIT $2
        FOR UPDATE SKIP LOCKED
      )
      RETURNING 1
    )
    SELECT count(*)::integer AS count FROM deleted`;
}

const DELETE_BATCHES = [
  deleteBatchSql('delivered', 'delivered_at'),
  deleteBatchSql('dead', 'dead_at'),
  deleteBatchSql('unsubscribed', 'unsubscribed_at'),
] as const;

/**
 * Deletes the rows past their retention (docs/webhooks.md#retention), whether or not this instance
 * delivers: rows written while subscribers were configured outlive a configuration without them.
 */
@Injectable()
export class WebhookOutboxCleanup extends PeriodicTask implements OnApplicationBootstrap {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly dataSource: DataSource,
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
    const pool = rawQueries(this.dataSource);
    let deleted = 0;
    for (const text of DELETE_BATCHES) {
      deleted += await inBatches(pool, text, [this.config.retentionMs], CLEANUP_BATCH, () => this.stopped);
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
