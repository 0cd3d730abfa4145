import { randomBytes } from 'node:crypto';

import { startTestApp, type TestApp } from './support/app.js';
import { closeAll } from './support/cleanup.js';
import { truncateAll } from './support/database.js';
import { eventually } from './support/eventually.js';
import { AUTH, newPlant } from './support/factories.js';
import { freePort } from './support/service-process.js';
import { StalledReceiver, WebhookReceiver } from './support/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const CHANGES = 300;

/** Creates `count` plants, `concurrency` requests at a time; answers when the last has been answered. */
async function createPlants(testApp: TestApp, count: number, concurrency = 10): Promise<void> {
  for (let done = 0; done < count; done += concurrency) {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, count - done) }, async () => {
        const response = await fetch(`${testApp.url}/plants`, {
          method: 'POST',
          headers: { ...AUTH, 'Content-Type': 'application/json' },
          body: JSON.stringify(newPlant()),
        });
        expect(response.status).toBe(200);
      }),
    );
  }
}

describe('webhook delivery beside a subscriber that never answers', () => {
  let healthy: WebhookReceiver;
  let stalled: StalledReceiver;
  let testApp: TestApp;

  beforeAll(async () => {
    healthy = new WebhookReceiver(await freePort());
    stalled = new StalledReceiver(await freePort());
    await Promise.all([healthy.start(), stalled.start()]);
    // The default timeout (5 s) and poll interval: as an operator runs it.
    testApp = await startTestApp({ WEBHOOK_URLS: `${stalled.url},${healthy.url}`, WEBHOOK_SECRET: SECRET });
    await truncateAll(testApp.db);
  });

  afterAll(async () => {
    await closeAll(
      () => testApp?.close(),
      () => healthy?.stop(),
      () => stalled?.stop(),
    );
  });

  it(`delivers ${CHANGES} changes to the healthy subscriber within 15 s of the last`, async () => {
    await createPlants(testApp, CHANGES);
    const lastChange = Date.now();

    const delivered = () => new Set(healthy.received.map((delivery) => delivery.headers['webhook-id']));
    await eventually(() => delivered().size === CHANGES, 15_000).catch(() => undefined);

    expect(delivered().size).toBe(CHANGES);
    expect(Math.max(...healthy.received.map((delivery) => delivery.receivedAt))).toBeLessThanOrEqual(
      lastChange + 15_000,
    );
    const metrics = async () => (await fetch(`${testApp.url}/metrics`)).text();
    expect(await metrics()).toContain(
      `webhook_deliveries_total{subscriber="${healthy.url}",outcome="delivered"} ${CHANGES}\n`,
    );
    // The stalled subscriber was tried too, with its own attempts: once they time out, its
    // circuit opens and it is backed off, while the healthy one's stays closed.
    expect(stalled.connections).toBeGreaterThan(0);
    await eventually(
      async () =>
        (await metrics()).includes(`webhook_subscriber_circuit_open{subscriber="${stalled.url}"} 1\n`),
      15_000,
    );
    expect(await metrics()).toContain(`webhook_subscriber_circuit_open{subscriber="${healthy.url}"} 0\n`);
  });
});

describe('a subscriber that fails for a while', () => {
  let receiver: WebhookReceiver;
  let testApp: TestApp;

  beforeAll(async () => {
    receiver = new WebhookReceiver(await freePort());
    await receiver.start();
    // Without a circuit breaker, each event would be given up after 4 attempts, about
    // 0.7 s after its first: well within the 1.5 s the receiver fails below.
    testApp = await startTestApp({
      WEBHOOK_URLS: receiver.url,
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_BACKOFF_BASE_MS: '100',
      WEBHOOK_BACKOFF_MAX_MS: '400',
      WEBHOOK_MAX_ATTEMPTS: '4',
      WEBHOOK_CIRCUIT_FAILURES: '2',
      LOG_LEVEL: 'info',
    });
    await truncateAll(testApp.db);
  });

  afterAll(async () => {
    await closeAll(
      () => testApp?.close(),
      () => receiver?.stop(),
    );
  });

  it('is backed off as a whole: its events wait without spending their attempts, then all go', async () => {
    const failingUntil = Date.now() + 1_500;
    receiver.respond = () => (Date.now() < failingUntil ? 503 : 200);

    await createPlants(testApp, 10);

    const rows = async () =>
      (
        await testApp.db.query<{ status: string; attempts: number }>(
          'SELECT status, attempts FROM webhook_deliveries',
        )
      ).rows;
    await eventually(async () => (await rows()).every((row) => row.status === 'delivered'), 10_000);
    expect(Math.max(...(await rows()).map((row) => row.attempts))).toBeLessThan(4);
    const refused = receiver.received.filter((delivery) => delivery.receivedAt < failingUntil);
    // The first attempt of each event, then one trial per pause: not four attempts each.
    expect(refused.length).toBeLessThan(10 + 10);
    const log = testApp.logs.text();
    expect(log).toContain(
      `Webhook subscriber ${receiver.url} failed 2 attempts in a row (the last: HTTP 503)`,
    );
    expect(log).toContain(`Webhook subscriber ${receiver.url} takes events again`);
  });
});
