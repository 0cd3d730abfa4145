import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Which subscribers some instance is configured with: each instance renews a
 * lease on each of its subscribers' keys, so that any instance can tell a
 * subscriber every instance has dropped (its lease ran out) from one that
 * only it lacks, as during a rolling update that adds one
 * (WebhookSubscriberRegistry).
 */
@Entity({ name: 'webhook_subscribers' })
export class WebhookSubscriberLease {
  /** The subscriber's key, as the outbox stores it: origin and path. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'webhook_subscribers_pkey' })
  subscriber!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
