import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';

import { AuditRetention } from '../audit/audit-retention.js';
import { webhookConfig, type WebhookConfig } from '../config/webhook.config.js';
import { inBatches } from '../database/in-batches.js';
import { PeriodicTask } from '../lifecycle/periodic-task.js';
import { WebhookOutboxCleanup } from '../webhooks/webhook-outbox-cleanup.js';
import { describeError } from '../webhooks/webhook-subscribers.js';

/** Rows removed per statement: each statement is short, and holds few row locks. */
const BATCH = 1_000;

/**
 * The one periodic task that removes what has outlived its retention, every
 * `WEBHOOK_CLEANUP_INTERVAL_MS`: delivered, dead and unsubscribed webhook deliveries
 * (`WEBHOOK_RETENTION_MS`), audit events (`AUDIT_RETENTION_DAYS`) and soft-deleted records
 * (`SOFT_DELETE_RETENTION_DAYS`). Each step logs its own failure, and the others still run.
 */
@Injectable()
export class RetentionTask extends PeriodicTask implements OnApplicationBootstrap {
  private readonly logger = new Logger('Retention');

  constructor(
    private readonly outbox: WebhookOutboxCleanup,
    private readonly audit: AuditRetention,
    @Inject(webhookConfig.KEY) private readonly config: WebhookConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    if (this.outbox.isEnabled || this.audit.isEnabled) {
      // The first run comes at a random point of the first interval: replicas started together
      // spread out, and one restarted more often than the interval still gets to run.
      this.startRuns(this.config.cleanupIntervalMs, Math.random() * this.config.cleanupIntervalMs);
    }
  }

  /** One pass of every step; answers what each removed. */
  async removeExpired(): Promise<Record<string, number>> {
    const stop = () => this.stopped;
    const steps: Array<[string, () => Promise<number>]> = [
      ['delivered, dead or unsubscribed webhook deliveries', () => this.outbox.deleteExpired(stop)],
      ['audit events', () => inBatches(BATCH, (size) => this.audit.pruneEvents(size), stop)],
      ...this.audit
        .softDeleting()
        .map((metadata): [string, () => Promise<number>] => [
          `soft-deleted records of ${metadata.tableName}`,
          () => inBatches(BATCH, (size) => this.audit.purgeSoftDeleted(metadata, size), stop),
        ]),
    ];
    const removed: Record<string, number> = {};
    for (const [what, step] of steps) {
      try {
        removed[what] = await step();
        if (removed[what] > 0) {
          this.logger.log(`Removed ${removed[what]} ${what} past their retention`);
        }
      } catch (error) {
        this.logger.warn(`Could not remove the ${what} past their retention: ${describeError(error)}`);
      }
    }
    return removed;
  }

  protected async run(): Promise<void> {
    await this.removeExpired();
  }
}
