import request from 'supertest';

import { startTestApp, type TestApp } from './support/app.js';
import { closeAll } from './support/cleanup.js';
import {
  type DebianPostgres,
  removeServers,
  startDebianPostgres,
  unprivileged,
  workFolder,
} from './support/debian-postgres.js';
import { eventually } from './support/eventually.js';
import { AUTH } from './support/factories.js';
import { describeWith, POSTGRES_15 } from './support/system-packages.js';
import { WebhookReceiver, webhookSecret } from './support/webhook-receiver.js';

const DATABASE = 'plant_store_test';

/**
 * A primary and a streaming hot standby of it (`pg_basebackup -R`), both
 * Debian's PostgreSQL 15, with DATABASE_REPLICA_URLS naming the standby:
 * reads by id and pages go to it, everything else to the primary (the webhook
 * outbox's claims and writes too), and when it stops answering, reads go to
 * the primary without an error.
 */
describeWith([POSTGRES_15])('read replicas', () => {
  let folder: string;
  let primary: DebianPostgres;
  let standby: DebianPostgres;
  let testApp: TestApp;
  const receiver = new WebhookReceiver();

  const api = () => request(testApp.server);
  /** Stops the standby applying what the primary writes: what it serves stays as it is. */
  const pauseReplay = () => standby.query('SELECT pg_wal_replay_pause()');
  const resumeReplay = () => standby.query('SELECT pg_wal_replay_resume()');
  /** Waits until the standby has applied everything the primary wrote so far. */
  const caughtUp = async () => {
    const [{ lsn }] = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      const [{ behind }] = await standby.query<{ behind: boolean }>(
        `SELECT pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn AS behind`,
      );
      if (!behind) {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the standby did not catch up with the primary within 10 s');
  };

  beforeAll(async () => {
    folder = await workFolder('plant-store-replicas-', await unprivileged());
    primary = await startDebianPostgres({ folder, name: 'primary' });
    await primary.query(`CREATE DATABASE ${DATABASE}`);
    standby = await startDebianPostgres({ folder, name: 'standby', standbyOf: primary });
    await receiver.start();
    testApp = await startTestApp({
      ...receiver.serviceEnv(webhookSecret()),
      DATABASE_URL: primary.url(DATABASE),
      DATABASE_REPLICA_URLS: standby.url(DATABASE),
      DATABASE_REPLICA_RETRY_MS: '1000',
      LOG_LEVEL: 'error',
    });
  }, 60_000);

  afterAll(async () => {
    await closeAll(
      () => testApp?.close(),
      () => folder && removeServers(folder, standby, primary),
      () => receiver.stop(),
    );
  });

  it('reads by id and pages from the replica, and writes and checks If-Match on the primary', async () => {
    await api().post('/plants').set(AUTH).send({ id: 1, name: 'Fern' }).expect(200);
    await caughtUp();
    await pauseReplay();
    try {
      await api().post('/plants').set(AUTH).send({ id: 2, name: 'Moss' }).expect(200);

      // The replica has not applied the second plant: reads do not find it yet.
      await api().get('/plants/2').set(AUTH).expect(404);
      const page = await api().get('/plants').set(AUTH).expect(200);
      expect(page.body).toStrictEqual([{ id: 1, name: 'Fern' }]);
      // Changes, and the preconditions they check, are the primary's: it has the second plant.
      const patched = await api()
        .patch('/plants/2')
        .set(AUTH)
        .set('If-Match', '"1"')
        .send({ tag: 'bryophyte' });
      expect(patched.status).toBe(200);
      expect(patched.body).toStrictEqual({ id: 2, name: 'Moss', tag: 'bryophyte' });
      await api().delete('/plants/1').set(AUTH).set('If-Match', '"1"').expect(204);
      await api().get('/plants/1').set(AUTH).expect(200);
      // The outbox is claimed and marked on the primary: the standby has none of these events.
      const delivered = async () =>
        (
          await primary.query<{ status: string }>(
            'SELECT status FROM webhook_deliveries ORDER BY id',
            DATABASE,
          )
        ).map(({ status }) => status);
      await eventually(async () => (await delivered()).length === 4);
      await eventually(async () => (await delivered()).every((status) => status === 'delivered'));
      expect(
        receiver.received.map((delivery) => delivery.headers['webhook-event-type']).sort(),
      ).toStrictEqual(['plant.created', 'plant.created', 'plant.deleted', 'plant.updated']);
    } finally {
      await resumeReplay();
    }
    await caughtUp();
    await expect(api().get('/plants/2').set(AUTH)).resolves.toMatchObject({
      status: 200,
      body: { id: 2, name: 'Moss', tag: 'bryophyte' },
    });
    await api().get('/plants/1').set(AUTH).expect(404);
  });

  it('reads from the primary, every answer 200, while the replica does not answer, then from it again', async () => {
    await api().post('/plants').set(AUTH).send({ id: 3, name: 'Yew' }).expect(200);
    await standby.stop('immediate');
    try {
      const statuses: number[] = [];
      for (const deadline = Date.now() + 2_000; Date.now() < deadline;) {
        const [read, page] = await Promise.all([
          api().get('/plants/3').set(AUTH),
          api().get('/plants?limit=5').set(AUTH),
        ]);
        statuses.push(read.status, page.status);
        expect(read.body).toStrictEqual({ id: 3, name: 'Yew' });
      }
      expect(new Set(statuses)).toStrictEqual(new Set([200]));
    } finally {
      await standby.start();
    }

    // Back, once DATABASE_REPLICA_RETRY_MS has passed: a paused replica does not know a new plant.
    await caughtUp();
    await pauseReplay();
    try {
      await api().post('/plants').set(AUTH).send({ id: 4, name: 'Box' }).expect(200);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await api().get('/plants/4').set(AUTH).expect(404);
    } finally {
      await resumeReplay();
    }
  });
});
