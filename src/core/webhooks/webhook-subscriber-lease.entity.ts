import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A lease each instance renews on its subscribers' keys (docs/webhooks.md#removed-subscribers). */
@Entity({ name: 'webhook_subscribers' })
export class WebhookSubscriberLease {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'webhook_subscribers_pkey' })
  subscriber!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
