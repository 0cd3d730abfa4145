import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import request from 'supertest';

import { OUTBOX_METRICS_CACHE_MS } from '../src/core/webhooks/webhook-outbox-metrics.js';
import { TEST_TOKEN } from './support/environment.js';
import { eventually } from './support/eventually.js';
import { failedStart, requeue } from './support/service-process.js';
import { verifyDelivery, WebhookReceiver, webhookSecret } from './support/webhook-receiver.js';
import { type TestApp, useTestApp } from './support/app.js';

const SECRET = webhookSecret();
/** The pending deliveries of the subscriber `insertRows` writes for when it is not told one. */
const PENDING = 'webhook_outbox_pending{subscriber="http://127.0.0.1:9/hooks"}';

interface Row {
  readonly status: 'pending' | 'delivered' | 'dead' | 'unsubscribed';
  readonly subscriber?: string;
  readonly eventId?: string;
  /** PostgreSQL intervals before now: when the row was written, delivered, given up. */
  readonly created?: string;
  readonly delivered?: string;
  readonly dead?: string;
  readonly unsubscribed?: string;
  /** Copies of the row to write. */
  readonly copies?: number;
}

/** Writes outbox rows as the service would have left them, in one statement. */
async function insertRows(testApp: TestApp, rows: readonly Row[]): Promise<void> {
  const expanded = rows.flatMap((row) => Array.from({ length: row.copies ?? 1 }, () => row));
  await testApp.db.query(
    `INSERT INTO webhook_deliveries
       (event_id, event_type, subscriber, payload, status, attempts, created_at, delivered_at, dead_at,
        unsubscribed_at, last_error)
     SELECT row.event_id, 'plant.created', row.subscriber, '{"id":1,"name":"Fern"}', row.status,
            CASE row.status WHEN 'pending' THEN 0 ELSE 3 END,
            now() - row.created, now() - row.delivered, now() - row.dead, now() - row.unsubscribed,
            CASE row.status WHEN 'dead' THEN 'HTTP 503' END
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::interval[], $5::interval[], $6::interval[], $7::interval[])
       AS row (event_id, subscriber, status, created, delivered, dead, unsubscribed)`,
    [
      expanded.map((row) => row.eventId ?? randomUUID()),
      expanded.map((row) => row.subscriber ?? 'http://127.0.0.1:9/hooks'),
      expanded.map((row) => row.status),
      expanded.map((row) => row.created ?? '0 seconds'),
      expanded.map((row) => row.delivered ?? null),
      expanded.map((row) => row.dead ?? null),
      expanded.map((row) => row.unsubscribed ?? null),
    ],
  );
}

async function statuses(testApp: TestApp): Promise<string[]> {
  const { rows } = await testApp.db.query<{ row: string }>(
    `SELECT status || ' ' || coalesce(round(extract(epoch FROM now() - coalesce(delivered_at, dead_at, unsubscribed_at, created_at)) / 60), 0) AS row
     FROM webhook_deliveries ORDER BY 1`,
  );
  return rows.map((row) => row.row);
}

/** The value of one sample in a Prometheus text exposition (NaN when it says Nan), or undefined when absent. */
async function sample(testApp: TestApp, series: string): Promise<number | undefined> {
  const { text } = await request(testApp.server).get('/metrics').expect(200);
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the webhook secret at start-up', () => {
  it('refuses a plain secret of the signatures before Standard Webhooks, saying how to keep its key', async () => {
    const plain = 'an-old-webhook-secret-of-at-least-32-characters';
    const { code, output } = await failedStart({
      DATABASE_URL: process.env.DATABASE_URL,
      AUTH_TOKENS: TEST_TOKEN,
      WEBHOOK_URLS: 'http://127.0.0.1:9/hooks',
      WEBHOOK_SECRET: plain,
    });

    expect(code).toBe(1);
    expect(output).toContain('WEBHOOK_SECRET entry 1 is not a Standard Webhooks secret');
    expect(output).toContain(`printf %s "$OLD_SECRET" | base64 | tr -d '\\n'`);
    expect(output).not.toContain(plain);
  });
});

describe('the webhook outbox upkeep', () => {
  // No subscriber: the outbox is still kept clean and measured, and nothing else touches it
  // (the pending rows below are for no configured subscriber: no sweep runs during the tests).
  const testApp = useTestApp({
    WEBHOOK_SUBSCRIBER_LEASE_MS: String(86_400_000),
    WEBHOOK_RETENTION_MS: String(3_600_000),
    WEBHOOK_CLEANUP_INTERVAL_MS: '1000',
    DATABASE_STATEMENT_TIMEOUT_MS: '300',
    LOG_LEVEL: 'info',
  });

  it('deletes delivered, dead and unsubscribed rows past the retention, in batches; keeps pending and recent ones', async () => {
    await insertRows(testApp, [
      { status: 'delivered', created: '2 hours', delivered: '2 hours', copies: 2_501 },
      { status: 'dead', created: '2 hours', dead: '2 hours' },
      { status: 'unsubscribed', created: '2 hours', unsubscribed: '2 hours' },
      // Written long ago, but delivered, given up or unsubscribed within the retention.
      { status: 'delivered', created: '3 hours', delivered: '10 minutes' },
      { status: 'dead', created: '3 hours', dead: '10 minutes' },
      { status: 'unsubscribed', created: '3 hours', unsubscribed: '10 minutes' },
      // Never deleted, however old: it is still to be delivered.
      { status: 'pending', created: '3 hours' },
    ]);

    await eventually(async () => (await statuses(testApp)).length === 4, 5_000);
    await expect(statuses(testApp)).resolves.toStrictEqual([
      'dead 10',
      'delivered 10',
      'pending 180',
      'unsubscribed 10',
    ]);
    // Each run logs what it deleted; one run went on past a batch of 1,000 (a run may also have
    // caught the rows' INSERT between its two statements, and left the rest to the next run).
    const deletedPerRun = () =>
      testApp.logs
        .entries()
        .map(
          (entry) =>
            /^Removed (\d+) delivered, dead or unsubscribed webhook deliveries/.exec(String(entry.msg))?.[1],
        )
        .filter((count) => count !== undefined)
        .map(Number);
    await eventually(() => deletedPerRun().reduce((sum, count) => sum + count, 0) === 2_503);
    expect(Math.max(...deletedPerRun())).toBeGreaterThan(1_000);
  });

  it('reports pending, dead and unsubscribed deliveries, and the age of the oldest pending one, by subscriber', async () => {
    const [one, other] = ['http://127.0.0.1:9/hooks', 'http://127.0.0.1:10/hooks'];
    await insertRows(testApp, [
      { status: 'pending', subscriber: one, created: '90 seconds' },
      { status: 'pending', subscriber: one, copies: 2 },
      { status: 'dead', subscriber: one, dead: '1 minute', copies: 2 },
      { status: 'delivered', subscriber: one, delivered: '1 minute' },
      { status: 'pending', subscriber: other, created: '10 seconds' },
      { status: 'unsubscribed', subscriber: other, unsubscribed: '1 minute', copies: 4 },
    ]);

    // Once a reading taken after the rows were written is served, every gauge comes from it.
    await eventually(
      async () => (await sample(testApp, `webhook_outbox_pending{subscriber="${one}"}`)) === 3,
    );
    await expect(sample(testApp, `webhook_outbox_dead{subscriber="${one}"}`)).resolves.toBe(2);
    const age = await sample(testApp, `webhook_outbox_oldest_pending_age_seconds{subscriber="${one}"}`);
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(120);
    await expect(sample(testApp, `webhook_outbox_pending{subscriber="${other}"}`)).resolves.toBe(1);
    await expect(sample(testApp, `webhook_outbox_dead{subscriber="${other}"}`)).resolves.toBe(0);
    await expect(sample(testApp, `webhook_outbox_unsubscribed{subscriber="${other}"}`)).resolves.toBe(4);
    await expect(sample(testApp, `webhook_outbox_unsubscribed{subscriber="${one}"}`)).resolves.toBe(0);
  });

  it('reads the outbox once a second at most, however often it is scraped', async () => {
    await insertRows(testApp, [{ status: 'pending' }]);
    // Past any reading of an earlier test: this scrape reads the outbox.
    await sleep(OUTBOX_METRICS_CACHE_MS);
    await expect(sample(testApp, PENDING)).resolves.toBe(1);

    // Within the second, scrapes are served that reading: neither a new row nor a locked
    // table shows, as no statement is sent.
    await insertRows(testApp, [{ status: 'pending' }]);
    const blocker = await testApp.db.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE webhook_deliveries IN ACCESS EXCLUSIVE MODE');
      const scrapes = await Promise.all(Array.from({ length: 10 }, () => sample(testApp, PENDING)));
      expect(scrapes).toStrictEqual(Array(10).fill(1));
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    await eventually(async () => (await sample(testApp, PENDING)) === 2, 3_000);
  });

  it('still answers the scrape when the outbox cannot be read, with NaN for the outbox gauges', async () => {
    await insertRows(testApp, [{ status: 'pending' }]);
    await eventually(async () => (await sample(testApp, PENDING)) === 1);
    const blocker = await testApp.db.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE webhook_deliveries IN ACCESS EXCLUSIVE MODE');
      // Past the reading above, which scrapes would be served meanwhile.
      await sleep(OUTBOX_METRICS_CACHE_MS);

      const started = Date.now();
      await expect(sample(testApp, PENDING)).resolves.toBeNaN();
      expect(Date.now() - started).toBeLessThan(2_000);
      // The rest of the scrape, with its values: this application has created no plant.
      await expect(sample(testApp, 'plants_created_total')).resolves.toBe(0);
      expect(testApp.logs.text()).toContain('Could not read the outbox for the metrics');
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    await eventually(async () => (await sample(testApp, PENDING)) === 1, 3_000);
  });
});

describe('re-queueing dead webhook events (npm run webhooks:requeue)', () => {
  const receiver = new WebhookReceiver();
  /** A second subscriber, on the same receiver. */
  const copies = (): string => `${receiver.url}/copies`;
  const testApp = useTestApp(
    () => ({ ...receiver.serviceEnv(SECRET), WEBHOOK_URLS: `${receiver.url},${copies()}` }),
    { servers: [receiver] },
  );

  beforeEach(() => {
    receiver.received.length = 0;
  });

  async function statusOf(eventId: string): Promise<string[]> {
    const { rows } = await testApp.db.query<{ status: string }>(
      'SELECT status FROM webhook_deliveries WHERE event_id = $1 ORDER BY id',
      [eventId],
    );
    return rows.map((row) => row.status);
  }

  it('turns the dead deliveries of one event back to pending, and they are delivered, signed', async () => {
    const [chosen, other] = [randomUUID(), randomUUID()];
    await insertRows(testApp, [
      { status: 'dead', eventId: chosen, subscriber: receiver.url, dead: '10 minutes' },
      { status: 'dead', eventId: chosen, subscriber: copies(), dead: '10 minutes' },
      { status: 'dead', eventId: other, subscriber: receiver.url, dead: '10 minutes' },
    ]);

    const result = await requeue('--id', chosen);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Re-queued 2 dead webhook deliveries of 1 event(s)');
    await eventually(async () => (await statusOf(chosen)).every((status) => status === 'delivered'));
    expect(receiver.received.map((delivery) => delivery.headers['webhook-id'])).toStrictEqual([
      chosen,
      chosen,
    ]);
    for (const delivery of receiver.received) {
      expect(() => verifyDelivery(SECRET, delivery)).not.toThrow();
    }
    await expect(statusOf(other)).resolves.toStrictEqual(['dead']);
    await expect(sample(testApp, `webhook_outbox_dead{subscriber="${receiver.url}"}`)).resolves.toBe(1);
  });

  it('re-queues every dead event with --all', async () => {
    const events = [randomUUID(), randomUUID()];
    await insertRows(
      testApp,
      events.map((eventId) => ({ status: 'dead', eventId, subscriber: receiver.url, dead: '1 minute' })),
    );

    const result = await requeue('--all');

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Re-queued 2 dead webhook deliveries of 2 event(s)');
    await eventually(() => receiver.received.length === 2);
    expect(new Set(receiver.received.map((delivery) => delivery.headers['webhook-id']))).toStrictEqual(
      new Set(events),
    );
  });

  it('exits 1 when an event named has no dead delivery, or when the command line is wrong', async () => {
    const delivered = randomUUID();
    await insertRows(testApp, [{ status: 'delivered', eventId: delivered, delivered: '1 minute' }]);

    const notDead = await requeue('--id', delivered);
    expect(notDead.code).toBe(1);
    expect(notDead.stdout).toContain(`Event ${delivered} has no dead delivery`);
    await expect(statusOf(delivered)).resolves.toStrictEqual(['delivered']);

    const wrong = await requeue('--id', 'not-a-uuid');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('Not an event id (a UUID): not-a-uuid');
    expect(wrong.stderr).toContain('Usage: webhooks:requeue -- --all | --id <event id>');
  });
});
