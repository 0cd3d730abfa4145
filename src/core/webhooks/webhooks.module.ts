import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhookOutboxCleanup } from './webhook-outbox-cleanup.js';
import { WebhookOutboxMetrics } from './webhook-outbox-metrics.js';
import { WebhookSubscriberLease } from './webhook-subscriber-lease.entity.js';
import { WebhookSubscriberRegistry } from './webhook-subscriber-registry.js';

/** The outbox, its delivery and upkeep; any module enqueues events through WebhookOutbox. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([WebhookDelivery, WebhookSubscriberLease])],
  providers: [
    WebhookDispatcher,
    WebhookOutbox,
    WebhookOutboxCleanup,
    WebhookOutboxMetrics,
    WebhookSubscriberRegistry,
  ],
  exports: [WebhookDispatcher, WebhookOutbox],
})
export class WebhooksModule {}
