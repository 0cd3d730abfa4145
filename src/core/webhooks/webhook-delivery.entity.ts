import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * `unsubscribed`: still pending when no instance was configured with its
 * subscriber any more; never delivered, kept for the retention.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'dead' | 'unsubscribed';

/**
 * The outbox: one row per event and subscriber, written in the same
 * transaction as the change it announces (a new plant: the same statement;
 * see also WebhookOutbox), and delivered in the background. A pending row is
 * due at `next_attempt_at`; claiming it for an attempt pushes that time past
 * the attempt's timeout (a lease), so a crashed instance's attempt is taken
 * up again by another. Delivered and dead rows are deleted once older than
 * the retention (WebhookOutboxCleanup), found through their own indexes;
 * so are those of a subscriber no longer configured (`unsubscribed`).
 */
@Entity({ name: 'webhook_deliveries' })
@Index('webhook_deliveries_due_by_subscriber', ['subscriber', 'nextAttemptAt', 'id'], {
  where: `status = 'pending'`,
})
@Index('webhook_deliveries_delivered', ['deliveredAt'], { where: `status = 'delivered'` })
@Index('webhook_deliveries_dead', ['deadAt'], { where: `status = 'dead'` })
@Index('webhook_deliveries_unsubscribed', ['unsubscribedAt'], { where: `status = 'unsubscribed'` })
export class WebhookDelivery {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'webhook_deliveries_pkey' })
  id!: string;

  /** The event's id, the same for every subscriber: receivers de-duplicate on it. */
  @Column({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  /** What happened, `<resource>.<verb>` (`plant.created`): sent in the `webhook-event-type` header. */
  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType!: string;

  /**
   * The subscriber's key: its URL's origin and path (`https://hooks.example.com/plants`).
   * Never the whole URL: credentials and the query string, where secrets go,
   * stay in WEBHOOK_URLS, in memory.
   */
  @Column({ type: 'text' })
  subscriber!: string;

  /** The exact JSON body to send (for `plant.created`, a NewPlant): signed and sent as is. */
  @Column({ type: 'text' })
  payload!: string;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt!: Date;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;

  /**
   * The W3C `traceparent` of the change the event announces, when it was
   * traced: each delivery attempt's span links to it.
   */
  @Column({ type: 'varchar', length: 55, nullable: true })
  traceparent!: string | null;

  /** When the last attempt failed and the event was given up: its retention counts from here. */
  @Column({ name: 'dead_at', type: 'timestamptz', nullable: true })
  deadAt!: Date | null;

  /** When the event was found pending for a subscriber no longer configured: its retention counts from here. */
  @Column({ name: 'unsubscribed_at', type: 'timestamptz', nullable: true })
  unsubscribedAt!: Date | null;
}
