import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhookOutboxCleanup } from './webhook-outbox-cleanup.js';
import { WebhookOutboxMetrics } from './webhook-outbox-metrics.js';
import { WebhookSubscriberLease } from './webhook-subscriber-lease.entity.js';
import { WebhookSubscriberLeasesRepository } from './webhook-subscriber-leases.repository.js';
import { WebhookSubscriberRegistry } from './webhook-subscriber-registry.js';

/** The outbox, its delivery and upkeep; any module enqueues events through WebhookOutbox. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([WebhookDelivery, WebhookSubscriberLease])],
  providers: [
    WebhookDeliveriesRepository,
    WebhookSubscriberLeasesRepository,
    WebhookDispatcher,
    WebhookOutbox,
    WebhookOutboxCleanup,
    WebhookOutboxMetrics,
    WebhookSubscriberRegistry,
  ],
  exports: [WebhookDispatcher, WebhookOutbox, WebhookOutboxCleanup],
})
export class WebhooksModule {}
