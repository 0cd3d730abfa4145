import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { startTestApp, type TestApp } from './support/app.js';
import { closeAll, startAll } from './support/cleanup.js';
import { truncateAll } from './support/database.js';
import { eventually } from './support/eventually.js';
import { createPlants } from './support/factories.js';
import { freePort, requeue } from './support/service-process.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
/** Short leases, so that a subscriber removed everywhere is found within seconds. */
const LEASE_MS = 3_000;

function env(...receivers: WebhookReceiver[]) {
  return {
    WEBHOOK_URLS: receivers.map((receiver) => receiver.url).join(','),
    WEBHOOK_SECRET: SECRET,
    WEBHOOK_POLL_INTERVAL_MS: '100',
    WEBHOOK_BACKOFF_BASE_MS: '100',
    WEBHOOK_SUBSCRIBER_LEASE_MS: String(LEASE_MS),
    LOG_LEVEL: 'info',
  };
}

async function statusesOf(testApp: TestApp, receiver: WebhookReceiver): Promise<string[]> {
  const { rows } = await testApp.db.query<{ status: string }>(
    'SELECT status FROM webhook_deliveries WHERE subscriber = $1 ORDER BY id',
    [receiver.url],
  );
  return rows.map((row) => row.status);
}

async function sample(testApp: TestApp, series: string): Promise<number | undefined> {
  const text = await (await fetch(`${testApp.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('a subscriber removed from WEBHOOK_URLS', () => {
  let kept: WebhookReceiver;
  let removed: WebhookReceiver;

  beforeEach(async () => {
    kept = new WebhookReceiver(await freePort());
    removed = new WebhookReceiver(await freePort());
    await kept.start();
  });

  afterEach(async () => {
    await closeAll(
      () => kept.stop(),
      () => removed.stop(),
    );
  });

  it('has its pending events marked unsubscribed, never delivered, counted, logged once and kept, until re-queued', async () => {
    // Both subscribers; the second is down, so its events are still pending when the service stops.
    const before = await startTestApp(env(kept, removed));
    try {
      await truncateAll(before.db);
      await createPlants(before.url, 3);
      await eventually(() => kept.received.length === 3);
      await eventually(async () => (await statusesOf(before, removed)).length === 3);
    } finally {
      await before.close();
    }

    // Restarted with the first alone; the second is up again, and must get nothing.
    await removed.start();
    const after = await startTestApp(env(kept));
    try {
      await createPlants(after.url, 1);
      await eventually(
        async () => (await statusesOf(after, removed)).every((status) => status === 'unsubscribed'),
        10_000,
      );

      expect(removed.received).toHaveLength(0);
      await eventually(() => kept.received.length === 4);
      await expect(statusesOf(after, kept)).resolves.toStrictEqual(Array(4).fill('delivered'));
      const { rows } = await after.db.query<{ unsubscribed: boolean }>(
        "SELECT unsubscribed_at > created_at AS unsubscribed FROM webhook_deliveries WHERE status = 'unsubscribed'",
      );
      expect(rows).toStrictEqual(Array(3).fill({ unsubscribed: true }));
      await expect(sample(after, `webhook_outbox_unsubscribed{subscriber="${removed.url}"}`)).resolves.toBe(
        3,
      );
      await expect(sample(after, `webhook_outbox_pending{subscriber="${removed.url}"}`)).resolves.toBe(0);
      // Several sweeps later, still one line.
      await sleep(LEASE_MS);
      const lines = after.logs
        .entries()
        .filter((entry) =>
          String(entry.msg).startsWith(`Webhook subscriber ${removed.url} is configured on no instance`),
        );
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 'warn', context: 'Webhooks' });
      expect(String(lines[0].msg)).toContain('3 pending event(s) marked unsubscribed');
      expect(removed.received).toHaveLength(0);
    } finally {
      await after.close();
    }

    // Configured again, its events go out once the operator sends them again.
    const again = await startTestApp(env(kept, removed));
    try {
      const result = await requeue('--unsubscribed', removed.url);

      expect(result.stdout).toContain(
        'Re-queued 3 unsubscribed webhook deliveries of 3 event(s): they will be delivered again',
      );
      expect(result.code).toBe(0);
      await eventually(() => removed.received.length === 3, 10_000);
      // Each is marked delivered once its answer is in.
      await eventually(
        async () => (await statusesOf(again, removed)).every((status) => status === 'delivered'),
        10_000,
      );
      await expect(statusesOf(again, removed)).resolves.toStrictEqual(Array(3).fill('delivered'));
      await expect(statusesOf(again, kept)).resolves.toStrictEqual(Array(4).fill('delivered'));
    } finally {
      await again.close();
    }
  });

  it('is not taken for removed while another instance still has it, as during a rolling update', async () => {
    await removed.start();
    // The instance started first has one subscriber; the one started next adds the second.
    const [older, newer] = await startAll(
      [startTestApp(env(kept)), startTestApp(env(kept, removed))],
      (started) => started.close(),
    );
    try {
      // The outbox only: the leases the instances took at their start must stay.
      await older.db.query('TRUNCATE webhook_deliveries');
      removed.respond = () => 503;
      await createPlants(newer.url, 2);
      await eventually(() => removed.received.length >= 2);
      // The older instance sweeps several times meanwhile: the newer one's lease keeps the events.
      await sleep(LEASE_MS * 1.5);
      await expect(statusesOf(older, removed)).resolves.toStrictEqual(['pending', 'pending']);

      removed.respond = () => 200;
      await eventually(
        async () => (await statusesOf(older, removed)).every((status) => status === 'delivered'),
        10_000,
      );
    } finally {
      await Promise.all([older.close(), newer.close()]);
    }
  });
});
