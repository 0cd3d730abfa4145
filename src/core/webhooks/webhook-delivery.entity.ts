import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** `unsubscribed`: pending when no instance had its subscriber any more; never delivered. */
export type DeliveryStatus = 'pending' | 'delivered' | 'dead' | 'unsubscribed';

/**
 * The outbox (docs/webhooks.md#the-outbox-and-its-upkeep). Claiming a row pushes `next_attempt_at`
 * past the attempt's timeout, a lease: a crashed instance's attempt is taken up by another.
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

  @Column({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType!: string;

  /** Origin and path only: credentials and the query string, where secrets go, stay in memory. */
  @Column({ type: 'text' })
  subscriber!: string;

  /** Signed and sent exactly as stored. */
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

  @Column({ type: 'varchar', length: 55, nullable: true })
  traceparent!: string | null;

  @Column({ name: 'dead_at', type: 'timestamptz', nullable: true })
  deadAt!: Date | null;

  @Column({ name: 'unsubscribed_at', type: 'timestamptz', nullable: true })
  unsubscribedAt!: Date | null;
}
