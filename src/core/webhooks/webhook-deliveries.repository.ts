import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, QueryDeepPartialEntity, Repository, SelectQueryBuilder } from 'typeorm';

import { type DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookSubscriberLease } from './webhook-subscriber-lease.entity.js';

/** One outbox row as the outbox writes it: the rest are the columns' defaults. */
export type NewDelivery = Pick<
  WebhookDelivery,
  'eventId' | 'eventType' | 'subscriber' | 'payload' | 'traceparent'
>;

/** What an attempt sends, as the claim answers it. */
export type ClaimedDelivery = Pick<
  WebhookDelivery,
  'id' | 'eventId' | 'eventType' | 'subscriber' | 'payload' | 'attempts' | 'traceparent'
>;

/** The states kept after delivery ends, each deleted past the retention counted from its own column. */
export type FinishedStatus = Exclude<DeliveryStatus, 'pending'>;

/** A count of one subscriber's rows in one state, the states counted, as the metrics read them. */
export interface BacklogRow {
  readonly subscriber: string;
  readonly status: Exclude<DeliveryStatus, 'delivered'>;
  readonly count: number;
  /** Of its oldest row. */
  readonly oldestAgeSeconds: number;
}

/** Which of `dead` or `unsubscribed` rows `requeue` turns back to pending. */
export interface RequeueFilter {
  readonly status: 'dead' | 'unsubscribed';
  /** Only rows in that state since this time, as `now()` gave it (text, to the microsecond). */
  readonly since: string;
  readonly eventIds: readonly string[] | null;
  readonly subscribers: readonly string[] | null;
}

const CLAIMED_COLUMNS: ReadonlyArray<keyof ClaimedDelivery> = [
  'id',
  'eventId',
  'eventType',
  'subscriber',
  'payload',
  'attempts',
  'traceparent',
];

const FINISHED_AT: Readonly<Record<FinishedStatus, keyof WebhookDelivery>> = {
  delivered: 'deliveredAt',
  dead: 'deadAt',
  unsubscribed: 'unsubscribedAt',
};

/**
 * The outbox, `webhook_deliveries` (docs/webhooks.md#the-outbox-and-its-upkeep). Every change of
 * many rows takes a batch locked `FOR UPDATE SKIP LOCKED`: instances, the clean-up and a re-queue
 * work side by side without waiting for each other, and no statement holds many locks. Every
 * statement is its own transaction, on the primary, unless the caller's `EntityManager` says otherwise.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(@InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>) {}

  /** In the caller's transaction: the events are recorded if and only if the change commits. */
  async record(manager: EntityManager, rows: readonly NewDelivery[]): Promise<void> {
    await manager
      .createQueryBuilder()
      .insert()
      .into(WebhookDelivery)
      .values([...rows])
      .updateEntity(false)
      .execute();
  }

  /**
   * Claims up to `room` of the subscriber's due deliveries, oldest first, and leases them for
   * `leaseMs` by moving their due time in the same statement: another instance takes one up only
   * once its lease has run out.
   */
  async claim(subscriber: string, room: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const claimed = await this.deliveries
      .createQueryBuilder()
      .update()
      .set({
        attempts: () => 'attempts + 1',
        nextAttemptAt: () => 'now() + make_interval(secs => :leaseSeconds)',
      })
      .where(
        idIn(
          this.lockedBatch(room)
            .where(`due.status = 'pending'`)
            .andWhere('due.subscriber = :subscriber')
            .andWhere('due.nextAttemptAt <= now()')
            .orderBy('due.nextAttemptAt')
            .addOrderBy('due.id'),
        ),
      )
      .setParameters({ subscriber, leaseSeconds: leaseMs / 1000 })
      .returning([...CLAIMED_COLUMNS])
      .updateEntity(false)
      .execute();
    // UPDATE … RETURNING answers rows as PostgreSQL names their columns.
    return (claimed.raw as ClaimedRow[]).map(claimedDelivery);
  }

  async markDelivered(id: string): Promise<void> {
    await this.deliveries.update(id, { status: 'delivered', deliveredAt: () => 'now()', lastError: null });
  }

  async markDead(id: string, lastError: string): Promise<void> {
    await this.deliveries.update(id, { status: 'dead', deadAt: () => 'now()', lastError });
  }

  /** Due again after `delayMs`: the lease the claim took ends sooner or later than that. */
  async retryLater(id: string, delayMs: number, lastError: string): Promise<void> {
    await this.deliveries
      .createQueryBuilder()
      .update()
      .set({ nextAttemptAt: () => 'now() + make_interval(secs => :delaySeconds)', lastError })
      .where({ id })
      .setParameter('delaySeconds', delayMs / 1000)
      .updateEntity(false)
      .execute();
  }

  /**
   * Every subscriber's pending, dead and unsubscribed rows, and the age of the oldest of each. Each
   * state is one branch of the `OR`, which its partial index answers: the delivered rows, however
   * many, are never read.
   */
  async backlog(): Promise<BacklogRow[]> {
    const rows = await this.deliveries
      .createQueryBuilder('delivery')
      .select('delivery.subscriber', 'subscriber')
      .addSelect('delivery.status', 'status')
      .addSelect('count(*)::float8', 'count')
      .addSelect('extract(epoch FROM now() - min(delivery.createdAt))::float8', 'oldestAgeSeconds')
      .where(`delivery.status = 'pending'`)
      .orWhere(`delivery.status = 'dead'`)
      .orWhere(`delivery.status = 'unsubscribed'`)
      .groupBy('delivery.subscriber')
      .addGroupBy('delivery.status')
      .getRawMany<BacklogRow>();
    return rows;
  }

  /** Deletes a batch of the rows in `status` that left delivery more than `retentionMs` ago; answers how many. */
  async deleteFinished(status: FinishedStatus, retentionMs: number, size: number): Promise<number> {
    const { affected } = await this.deliveries
      .createQueryBuilder()
      .delete()
      .where(
        idIn(
          this.lockedBatch(size)
            .where(`due.status = '${status}'`)
            .andWhere(`due.${FINISHED_AT[status]} < now() - make_interval(secs => :retentionSeconds)`),
        ),
      )
      .setParameter('retentionSeconds', retentionMs / 1000)
      .execute();
    return affected ?? 0;
  }

  /** The subscribers with pending rows on which no instance holds a lease. */
  async unleasedSubscribers(): Promise<string[]> {
    const rows = await this.deliveries
      .createQueryBuilder('delivery')
      .select('delivery.subscriber', 'subscriber')
      .distinct(true)
      .where(`delivery.status = 'pending'`)
      .andWhere((select) => `NOT EXISTS ${liveLease(select, 'delivery.subscriber')}`)
      .getRawMany<{ subscriber: string }>();
    return rows.map(({ subscriber }) => subscriber);
  }

  /** Moves a batch of the pending rows stored under `stored` to `key`; answers how many. */
  async rekeyPending(stored: string, key: string, size: number): Promise<number> {
    return this.changePending(stored, key, size, { subscriber: key });
  }

  /**
   * Marks `unsubscribed` a batch of the pending rows stored under `stored`, and stores them under
   * `key`, unless an instance holds a lease on `key`; answers how many. The lease is read in the
   * statement: an instance configured with the subscriber renews its lease before it writes any
   * row, so a row this statement sees was written after a lease it sees too.
   */
  async unsubscribePending(stored: string, key: string, size: number): Promise<number> {
    return this.changePending(
      stored,
      key,
      size,
      { status: 'unsubscribed', unsubscribedAt: () => 'now()', subscriber: key },
      (select) => `NOT EXISTS ${liveLease(select, ':key')}`,
    );
  }

  /** The database's clock, as text: it goes back to a `timestamptz` to the microsecond. */
  async now(): Promise<string> {
    const row = await this.deliveries.manager
      .createQueryBuilder()
      .select('now()::text', 'now')
      .fromDummy()
      .getRawOne<{ now: string }>();
    return row!.now;
  }

  /**
   * Turns a batch of the rows `filter` selects back to pending, due now with a full set of attempts;
   * answers their event ids. `SKIP LOCKED`: a row the clean-up is deleting is left to it.
   */
  async requeue(filter: RequeueFilter, size: number): Promise<string[]> {
    const batch = this.lockedBatch(size)
      .where(`due.status = '${filter.status}'`)
      .andWhere('coalesce(due.deadAt, due.unsubscribedAt) <= CAST(:since AS timestamptz)');
    if (filter.eventIds !== null) {
      batch.andWhere('due.eventId = ANY (:eventIds)');
    }
    if (filter.subscribers !== null) {
      batch.andWhere('due.subscriber = ANY (:subscribers)');
    }
    const requeued = await this.deliveries
      .createQueryBuilder()
      .update()
      .set({
        status: 'pending',
        attempts: 0,
        nextAttemptAt: () => 'now()',
        deadAt: null,
        unsubscribedAt: null,
      })
      .where(idIn(batch))
      .setParameters({
        since: filter.since,
        eventIds: filter.eventIds,
        subscribers: filter.subscribers,
      })
      .returning(['eventId'])
      .updateEntity(false)
      .execute();
    return (requeued.raw as Array<{ event_id: string }>).map((row) => row.event_id);
  }

  /**
   * At most `size` outbox rows, called `due`, each locked unless another transaction holds it. A
   * state is named in the text, not as a parameter, so that the planner picks its partial index.
   */
  private lockedBatch(size: number): SelectQueryBuilder<WebhookDelivery> {
    return this.deliveries
      .createQueryBuilder('due')
      .select('due.id')
      .limit(size)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked');
  }

  /** `unless` may name the subscriber's key as `:key`. */
  private async changePending(
    stored: string,
    key: string,
    size: number,
    changes: QueryDeepPartialEntity<WebhookDelivery>,
    unless?: (select: SelectQueryBuilder<WebhookDelivery>) => string,
  ): Promise<number> {
    const batch = this.lockedBatch(size).where(`due.status = 'pending'`).andWhere('due.subscriber = :stored');
    if (unless) {
      batch.andWhere(unless);
    }
    const { affected } = await this.deliveries
      .createQueryBuilder()
      .update()
      .set(changes)
      .where(idIn(batch))
      .setParameters({ stored, key })
      .updateEntity(false)
      .execute();
    return affected ?? 0;
  }
}

type ClaimedRow = Omit<ClaimedDelivery, 'eventId' | 'eventType'> & { event_id: string; event_type: string };

function claimedDelivery({ event_id, event_type, ...row }: ClaimedRow): ClaimedDelivery {
  return { ...row, eventId: event_id, eventType: event_type };
}

/** The batch, a query of its own, as the condition of a change: its parameters are the change's. */
function idIn(batch: SelectQueryBuilder<WebhookDelivery>): string {
  return `id IN (${batch.getQuery()})`;
}

/** A lease on `subscriber` (an expression) that has not run out. */
function liveLease(select: SelectQueryBuilder<WebhookDelivery>, subscriber: string): string {
  return select
    .subQuery()
    .select('1')
    .from(WebhookSubscriberLease, 'lease')
    .where(`lease.subscriber = ${subscriber}`)
    .andWhere('lease.expiresAt > now()')
    .getQuery();
}
