import { useTestApp } from './support/app.js';
import { eventually } from './support/eventually.js';
import { createPlants } from './support/factories.js';
import { StalledReceiver, WebhookReceiver, webhookSecret } from './support/webhook-receiver.js';

const SECRET = webhookSecret();
const CHANGES = 300;

describe('webhook delivery beside a subscriber that never answers', () => {
  const healthy = new WebhookReceiver();
  const stalled = new StalledReceiver();
  // The default timeout (5 s) and poll interval: as an operator runs it.
  const testApp = useTestApp(
    () => ({ WEBHOOK_URLS: `${stalled.url},${healthy.url}`, WEBHOOK_SECRET: SECRET }),
    {
      servers: [healthy, stalled],
    },
  );

  it(`delivers ${CHANGES} changes to the healthy subscriber within 15 s of the last`, async () => {
    await createPlants(testApp.url, CHANGES, 10);
    const lastChange = Date.now();

    const delivered = () => new Set(healthy.received.map((delivery) => delivery.headers['webhook-id']));
    await eventually(() => delivered().size === CHANGES, 15_000).catch(() => undefined);

    expect(delivered().size).toBe(CHANGES);
    expect(Math.max(...healthy.received.map((delivery) => delivery.receivedAt))).toBeLessThanOrEqual(
      lastChange + 15_000,
    );
    const metrics = async () => (await fetch(`${testApp.url}/metrics`)).text();
    // Counted once each delivery is recorded, just after the receiver's answer.
    const counted = `webhook_deliveries_total{subscriber="${healthy.url}",outcome="delivered"} ${CHANGES}\n`;
    await eventually(async () => (await metrics()).includes(counted), 2_000);
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
  const receiver = new WebhookReceiver();
  // Without a circuit breaker, each event would be given up after 4 attempts, about
  // 0.7 s after its first: well within the 1.5 s the receiver fails below.
  const testApp = useTestApp(
    () => ({
      ...receiver.serviceEnv(SECRET),
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_BACKOFF_BASE_MS: '100',
      WEBHOOK_BACKOFF_MAX_MS: '400',
      WEBHOOK_MAX_ATTEMPTS: '4',
      WEBHOOK_CIRCUIT_FAILURES: '2',
      LOG_LEVEL: 'info',
    }),
    { servers: [receiver] },
  );

  it('is backed off as a whole: its events wait without spending their attempts, then all go', async () => {
    const failingUntil = Date.now() + 1_500;
    receiver.respond = () => (Date.now() < failingUntil ? 503 : 200);

    await createPlants(testApp.url, 10, 10);

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
