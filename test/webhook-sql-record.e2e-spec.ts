import { randomUUID } from 'node:crypto';

import { DataSource } from 'typeorm';

import { WebhookDeliveriesRepository } from '../src/core/webhooks/webhook-deliveries.repository.js';
import { WebhookSubscriberLeasesRepository } from '../src/core/webhooks/webhook-subscriber-leases.repository.js';
import { useTestApp } from './support/app.js';
import { SqlRecorder, sqlRecord } from './support/sql-record.js';

const TEST = 'test/webhook-sql-record.e2e-spec.ts';
const SUBSCRIBER = 'http://127.0.0.1:9/hooks';
const OTHER = 'http://127.0.0.1:10/hooks';

/**
 * The SQL the outbox sends, kept beside it for review as the plants' is: each
 * repository method, with who calls it, made once, alone.
 */
describe('the SQL the webhook repositories send', () => {
  const testApp = useTestApp({ LOG_LEVEL: 'error' });

  it('is src/core/webhooks/webhooks.sql', async () => {
    const recorder = new SqlRecorder(testApp.app.get(DataSource));
    const deliveries = testApp.app.get(WebhookDeliveriesRepository);
    const leases = testApp.app.get(WebhookSubscriberLeasesRepository);
    const manager = testApp.app.get(DataSource).manager;
    const event = { eventType: 'plant.created', payload: '{"id":1}', traceparent: null };
    const since = await deliveries.now();

    const sections: Array<[string, string[]]> = [];
    for (const [name, work] of [
      [
        'WebhookOutbox.enqueueAll(): a row for each event and subscriber, in the caller’s transaction',
        () =>
          deliveries.record(manager, [
            { ...event, eventId: randomUUID(), subscriber: SUBSCRIBER },
            { ...event, eventId: randomUUID(), subscriber: OTHER },
          ]),
      ],
      ['WebhookDispatcher: a subscriber’s claim', () => deliveries.claim(SUBSCRIBER, 16, 35_000)],
      ['WebhookDispatcher: a delivery taken', () => deliveries.markDelivered('1')],
      [
        'WebhookDispatcher: a delivery failed, tried again later',
        () => deliveries.retryLater('1', 500, 'HTTP 503'),
      ],
      ['WebhookDispatcher: a delivery failed its last attempt', () => deliveries.markDead('1', 'HTTP 503')],
      ['WebhookOutboxMetrics: the backlog by subscriber', () => deliveries.backlog()],
      [
        'WebhookOutboxCleanup: a batch of each state past the retention',
        async () => {
          await deliveries.deleteFinished('delivered', 3_600_000, 1_000);
          await deliveries.deleteFinished('dead', 3_600_000, 1_000);
          await deliveries.deleteFinished('unsubscribed', 3_600_000, 1_000);
        },
      ],
      ['WebhookSubscriberRegistry: the leases renewed', () => leases.renew([SUBSCRIBER, OTHER], 90_000)],
      ['WebhookSubscriberRegistry: the leases run out forgotten', () => leases.forgetExpired()],
      ['WebhookSubscriberRegistry: the subscribers no lease covers', () => deliveries.unleasedSubscribers()],
      ['WebhookSubscriberRegistry: those still leased', () => leases.leased([SUBSCRIBER, OTHER])],
      [
        'WebhookSubscriberRegistry: a batch of pending rows moved to their subscriber’s key',
        () => deliveries.rekeyPending(`${SUBSCRIBER}?token=1`, SUBSCRIBER, 1_000),
      ],
      [
        'WebhookSubscriberRegistry: a batch of pending rows of a subscriber leased nowhere marked unsubscribed',
        () => deliveries.unsubscribePending(OTHER, OTHER, 1_000),
      ],
      ['webhooks:requeue: the database’s clock', () => deliveries.now()],
      [
        'webhooks:requeue --all: a batch',
        () => deliveries.requeue({ status: 'dead', since, eventIds: null, subscribers: null }, 1_000),
      ],
      [
        'webhooks:requeue --id: a batch',
        () =>
          deliveries.requeue({ status: 'dead', since, eventIds: [randomUUID()], subscribers: null }, 1_000),
      ],
      [
        'webhooks:requeue --unsubscribed: a batch',
        () =>
          deliveries.requeue(
            { status: 'unsubscribed', since, eventIds: null, subscribers: [SUBSCRIBER] },
            1_000,
          ),
      ],
    ] as const) {
      sections.push([name, await recorder.during(work)]);
    }

    const { stored, recorded } = await sqlRecord(
      new URL('../src/core/webhooks/webhooks.sql', import.meta.url),
      sections,
      { statements: 'The statements the webhook repositories send to PostgreSQL', test: TEST },
    );

    expect(stored).toBe(recorded);
  });
});
