import { WebhookVerificationError } from 'standardwebhooks';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { WebhookOutbox } from '../src/core/webhooks/webhook-outbox.js';
import { startAll } from './support/cleanup.js';
import { AUTH } from './support/factories.js';
import { truncateAll } from './support/database.js';
import { eventually } from './support/eventually.js';
import { freePort } from './support/service-process.js';
import { verifyDelivery, WebhookReceiver, webhookSecret } from './support/webhook-receiver.js';
import { startTestApp, type TestApp, useTestApp } from './support/app.js';

const SECRET = webhookSecret();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function webhookEnv(receiver: WebhookReceiver, overrides: Record<string, string> = {}) {
  return {
    ...receiver.serviceEnv(SECRET),
    WEBHOOK_BACKOFF_BASE_MS: '100',
    WEBHOOK_TIMEOUT_MS: '1000',
    ...overrides,
  };
}

async function outbox(testApp: TestApp) {
  const { rows } = await testApp.db.query<{
    event_id: string;
    event_type: string;
    status: string;
    attempts: number;
    payload: string;
  }>('SELECT event_id, event_type, status, attempts, payload FROM webhook_deliveries ORDER BY id');
  return rows;
}

async function resetTables(testApp: TestApp): Promise<void> {
  await truncateAll(testApp.db);
}

describe('the new-plant webhook', () => {
  const receiver = new WebhookReceiver();
  const testApp = useTestApp(() => webhookEnv(receiver, { WEBHOOK_MAX_ATTEMPTS: '3', LOG_LEVEL: 'info' }), {
    servers: [receiver],
  });

  beforeEach(() => {
    receiver.received.length = 0;
    receiver.respond = () => 200;
  });

  it('delivers each new plant as a NewPlant, its id with every digit, signed as Standard Webhooks says', async () => {
    const before = Math.floor(Date.now() / 1000);
    await request(testApp.server)
      .post('/plants')
      .set(AUTH)
      .send('{"id": 9223372036854775807, "name": "Fern", "tag": "x"}')
      .set('Content-Type', 'application/json');

    await eventually(() => receiver.received.length === 1);
    const [delivery] = receiver.received;
    expect(delivery.body).toBe('{"id":9223372036854775807,"name":"Fern","tag":"x"}');
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['webhook-id']).toMatch(UUID);
    expect(delivery.headers['webhook-event-type']).toBe('plant.created');
    expect(Number(delivery.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(Number(delivery.headers['webhook-timestamp'])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(() => verifyDelivery(SECRET, delivery)).not.toThrow();
    expect(() => verifyDelivery(webhookSecret(), delivery)).toThrow(WebhookVerificationError);
    await eventually(async () => (await outbox(testApp))[0]?.status === 'delivered');
    await expect(outbox(testApp)).resolves.toMatchObject([{ event_type: 'plant.created' }]);
  });

  it('delivers one signed plant.updated and one plant.deleted, and nothing for a change refused or empty', async () => {
    const id = '9223372036854775807';
    const plants = (path = '') => `/plants${path}`;
    await request(testApp.server)
      .post(plants())
      .set(AUTH)
      .set('Content-Type', 'application/json')
      .send(`{"id": ${id}, "name": "Fern", "tag": "x"}`)
      .expect(200);
    const patch = (path: string, body: string, ifMatch?: string) =>
      request(testApp.server)
        .patch(plants(path))
        .set(AUTH)
        .set('Content-Type', 'application/merge-patch+json')
        .set(ifMatch === undefined ? {} : { 'If-Match': ifMatch })
        .send(body);

    await patch(`/${id}`, '{"name": "Moss"}', '"7"').expect(412);
    await patch('/1', '{"name": "Moss"}').expect(404);
    await patch(`/${id}`, '{}').expect(200);
    await request(testApp.server)
      .delete(plants(`/${id}`))
      .set(AUTH)
      .set('If-Match', '"2"')
      .expect(412);
    await patch(`/${id}`, '{"tag": null}', '"1"').expect(200);
    await request(testApp.server)
      .delete(plants(`/${id}`))
      .set(AUTH)
      .set('If-Match', '"2"')
      .expect(204);
    await request(testApp.server)
      .delete(plants(`/${id}`))
      .set(AUTH)
      .expect(404);

    await eventually(() => receiver.received.length === 3);
    const byType = new Map(
      receiver.received.map((delivery) => [String(delivery.headers['webhook-event-type']), delivery]),
    );
    expect([...byType.keys()].sort()).toStrictEqual(['plant.created', 'plant.deleted', 'plant.updated']);
    expect(byType.get('plant.updated')?.body).toBe(`{"id":${id},"name":"Fern"}`);
    expect(byType.get('plant.deleted')?.body).toBe(`{"id":${id}}`);
    for (const delivery of receiver.received) {
      expect(() => verifyDelivery(SECRET, delivery)).not.toThrow();
    }
    await eventually(async () => (await outbox(testApp)).every((row) => row.status === 'delivered'));
    await expect(outbox(testApp)).resolves.toHaveLength(3);
  });

  it('signs the event id: a delivery replayed under another id fails verification', async () => {
    await request(testApp.server).post('/plants').set(AUTH).send({ id: 4, name: 'Ivy' }).expect(200);

    await eventually(() => receiver.received.length === 1);
    const [delivery] = receiver.received;
    const id = String(delivery.headers['webhook-id']);
    const otherId = `${id.startsWith('0') ? '1' : '0'}${id.slice(1)}`;
    expect(() => verifyDelivery(SECRET, delivery, { 'webhook-id': id })).not.toThrow();
    expect(() => verifyDelivery(SECRET, delivery, { 'webhook-id': otherId })).toThrow(
      WebhookVerificationError,
    );
  });

  it('delivers what another resource enqueues in its transaction, with its event type, once committed', async () => {
    const dataSource = testApp.app.get(DataSource);
    const webhookOutbox = testApp.app.get(WebhookOutbox);

    // Rolled back: no row, nothing sent.
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    await webhookOutbox.enqueue(runner.manager, 'plant.pruned', { id: 1 });
    await runner.rollbackTransaction();
    await runner.release();
    // Committed: delivered, a bigint written with every digit.
    const eventId = await dataSource.transaction((manager) =>
      webhookOutbox.enqueue(manager, 'plant.pruned', { id: 9223372036854775807n, cut: 3 }),
    );

    await eventually(() => receiver.received.length === 1);
    const [delivery] = receiver.received;
    expect(delivery.headers['webhook-id']).toBe(eventId);
    expect(delivery.headers['webhook-event-type']).toBe('plant.pruned');
    expect(delivery.body).toBe('{"id":9223372036854775807,"cut":3}');
    expect(() => verifyDelivery(SECRET, delivery)).not.toThrow();
    await eventually(async () => (await outbox(testApp))[0]?.status === 'delivered');
    await expect(outbox(testApp)).resolves.toHaveLength(1);
    await expect(webhookOutbox.enqueue(dataSource.manager, 'Plant Pruned', {})).rejects.toThrow(TypeError);
  });

  it('leaves tag out of the payload when the plant has none', async () => {
    await request(testApp.server).post('/plants').set(AUTH).send({ id: 5, name: 'Moss' });

    await eventually(() => receiver.received.length === 1);
    expect(receiver.received[0].body).toBe('{"id":5,"name":"Moss"}');
  });

  it('sends nothing for a create that stores nothing: a conflict, a replay, a refusal', async () => {
    await request(testApp.server).post('/plants').set(AUTH).send({ id: 6, name: 'Fern' });
    await eventually(() => receiver.received.length === 1);

    await request(testApp.server).post('/plants').set(AUTH).send({ id: 6, name: 'Fern' }).expect(200);
    await request(testApp.server).post('/plants').set(AUTH).send({ id: 6, name: 'Moss' }).expect(409);
    await request(testApp.server).post('/plants').set(AUTH).send({ id: 7 }).expect(400);

    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(1);
    await expect(outbox(testApp)).resolves.toHaveLength(1);
  });

  it('retries a failing receiver with growing pauses, then delivers, the event id unchanged', async () => {
    receiver.respond = (_delivery, index) => (index < 2 ? 500 : 200);

    await request(testApp.server).post('/plants').set(AUTH).send({ id: 8, name: 'Persistent' });

    await eventually(() => receiver.received.length === 3);
    const ids = new Set(receiver.received.map((delivery) => delivery.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const [first, second, third] = receiver.received.map((delivery) => delivery.receivedAt);
    // Backoff with jitter: the n-th pause is between half and all of 100 ms × 2^(n-1), plus polling.
    expect(second - first).toBeGreaterThanOrEqual(50);
    expect(third - second).toBeGreaterThanOrEqual(100);
    await eventually(async () => {
      const [row] = await outbox(testApp);
      return row?.status === 'delivered' && row.attempts === 3;
    });
  });

  it('gives an event up as dead after the last attempt, logs it and counts it', async () => {
    receiver.respond = () => 503;

    await request(testApp.server).post('/plants').set(AUTH).send({ id: 9, name: 'Unlucky' });

    await eventually(async () => (await outbox(testApp))[0]?.status === 'dead', 10_000);
    expect(receiver.received).toHaveLength(3);
    const [row] = await outbox(testApp);
    await eventually(() => testApp.logs.text().includes(`Webhook event ${row.event_id}`));
    expect(testApp.logs.text()).toContain(`is dead after 3 attempts: HTTP 503`);
    // The dispatcher works for no request: its lines carry no request's id, not even the create's.
    const dead = testApp.logs.entries().find((entry) => String(entry.msg).includes('is dead after'));
    expect(dead).toMatchObject({ level: 'error', context: 'Webhooks' });
    expect(dead).not.toHaveProperty('reqId');
    const metrics = await request(testApp.server).get('/metrics');
    const subscriber = `subscriber="${receiver.url}"`;
    expect(metrics.text).toContain(`webhook_deliveries_total{${subscriber},outcome="dead"} 1\n`);
    expect(metrics.text).toMatch(
      new RegExp(`^webhook_deliveries_total\\{${subscriber},outcome="failed"\\} [1-9]`, 'm'),
    );
  });
});

describe('the new-plant webhook across restarts and instances', () => {
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = new WebhookReceiver(await freePort());
  });

  afterEach(async () => {
    await receiver.stop();
  });

  it('signs with each configured secret, so that receivers can move to a new one', async () => {
    await receiver.start();
    const [current, next] = [webhookSecret(), webhookSecret()];
    const testApp = await startTestApp(webhookEnv(receiver, { WEBHOOK_SECRET: `${current},${next}` }));
    try {
      await resetTables(testApp);
      await request(testApp.server).post('/plants').set(AUTH).send({ id: 12, name: 'Rotated' }).expect(200);

      await eventually(() => receiver.received.length === 1);
      const [delivery] = receiver.received;
      expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(() => verifyDelivery(current, delivery)).not.toThrow();
      expect(() => verifyDelivery(next, delivery)).not.toThrow();
      expect(() => verifyDelivery(SECRET, delivery)).toThrow(WebhookVerificationError);
    } finally {
      await testApp.close();
    }
  });

  it('writes no outbox row at all when nobody subscribes', async () => {
    const testApp = await startTestApp();
    try {
      await resetTables(testApp);
      await request(testApp.server).post('/plants').set(AUTH).send({ id: 10, name: 'Quiet' }).expect(200);

      await expect(outbox(testApp)).resolves.toStrictEqual([]);
    } finally {
      await testApp.close();
    }
  });

  it('delivers, after a restart, the events a stopped instance had not delivered', async () => {
    // The receiver is down: the event stays in the outbox.
    const first = await startTestApp(webhookEnv(receiver, { WEBHOOK_BACKOFF_BASE_MS: '200' }));
    let pending: Awaited<ReturnType<typeof outbox>>[number];
    try {
      await resetTables(first);
      await request(first.server).post('/plants').set(AUTH).send({ id: 11, name: 'Patient' }).expect(200);
      await eventually(async () => ((await outbox(first))[0]?.attempts ?? 0) >= 1);
      await first.stop();
      [pending] = await outbox(first);
    } finally {
      await first.close();
    }
    expect(pending.status).toBe('pending');

    await receiver.start();
    const second = await startTestApp(webhookEnv(receiver));
    try {
      await eventually(() => receiver.received.length === 1, 10_000);
      expect(receiver.received[0].headers['webhook-id']).toBe(pending.event_id);
      expect(receiver.received[0].body).toBe('{"id":11,"name":"Patient"}');
      await eventually(async () => (await outbox(second))[0]?.status === 'delivered');
    } finally {
      await second.close();
    }
  });

  it('delivers each event once when two instances share the outbox', async () => {
    await receiver.start();
    const [one, two] = await startAll(
      [startTestApp(webhookEnv(receiver)), startTestApp(webhookEnv(receiver))],
      (started) => started.close(),
    );
    try {
      await resetTables(one);
      await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          request(index % 2 === 0 ? one.server : two.server)
            .post('/plants')
            .set(AUTH)
            .send({ id: 100 + index, name: `Plant ${index}` })
            .expect(200),
        ),
      );

      await eventually(async () => (await outbox(one)).every((row) => row.status === 'delivered'), 10_000);
      const ids = receiver.received.map((delivery) => delivery.headers['webhook-id']);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
