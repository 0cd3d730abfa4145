import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Raw, type Repository } from 'typeorm';

import { WebhookSubscriberLease } from './webhook-subscriber-lease.entity.js';

/** The leases instances hold on their subscribers, `webhook_subscribers` (docs/webhooks.md#removed-subscribers). */
@Injectable()
export class WebhookSubscriberLeasesRepository {
  constructor(
    @InjectRepository(WebhookSubscriberLease) private readonly leases: Repository<WebhookSubscriberLease>,
  ) {}

  /** Leases the subscribers for `leaseMs` from now; a longer lease another instance holds stays. */
  async renew(subscribers: readonly string[], leaseMs: number): Promise<void> {
    await this.leases
      .createQueryBuilder('lease')
      .insert()
      .values(
        subscribers.map((subscriber) => ({
          subscriber,
          expiresAt: () => 'now() + make_interval(secs => :leaseSeconds)',
        })),
      )
      .orUpdate(['expires_at'], ['subscriber'], {
        overwriteCondition: { where: 'lease.expires_at < EXCLUDED.expires_at' },
      })
      .setParameter('leaseSeconds', leaseMs / 1000)
      .updateEntity(false)
      .execute();
  }

  /** Those of `subscribers` that an instance holds a lease on. */
  async leased(subscribers: readonly string[]): Promise<string[]> {
    const leases = await this.leases.find({
      select: { subscriber: true },
      where: { subscriber: In(subscribers), expiresAt: Raw((expiresAt) => `${expiresAt} > now()`) },
    });
    return leases.map(({ subscriber }) => subscriber);
  }

  /** Deletes the leases that ran out. */
  async forgetExpired(): Promise<void> {
    await this.leases.delete({ expiresAt: Raw((expiresAt) => `${expiresAt} <= now()`) });
  }
}
