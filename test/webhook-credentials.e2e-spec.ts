import { randomBytes, randomUUID } from 'node:crypto';

import { DataSource } from 'typeorm';

import { KeyWebhookSubscribers1795900000001 } from '../src/core/webhooks/migrations/1795900000001-KeyWebhookSubscribers.js';
import { type TestApp, useTestApp } from './support/app.js';
import { eventually } from './support/eventually.js';
import { createPlants } from './support/factories.js';
import { freePort } from './support/service-process.js';
import { WebhookReceiver, webhookSecret } from './support/webhook-receiver.js';

const secret = (name: string) => `${name}-${randomBytes(8).toString('hex')}`;
const PASSWORD = secret('password');
const OTHER_PASSWORD = secret('other-password');
const QUERY_SECRET = secret('query-token');
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
/** What must be nowhere: the passwords and the query's token, as they are and as a Basic header carries them. */
const SECRETS = [
  PASSWORD,
  OTHER_PASSWORD,
  QUERY_SECRET,
  basic('alice', PASSWORD).slice('Basic '.length),
  basic('bob', OTHER_PASSWORD).slice('Basic '.length),
];

/** Every row of the outbox, every column, as one text. */
async function outboxDump(testApp: TestApp): Promise<string> {
  const { rows } = await testApp.db.query<{ row: string }>(
    'SELECT row_to_json(delivery)::text AS row FROM webhook_deliveries AS delivery',
  );
  return rows.map(({ row }) => row).join('\n');
}

function expectNoSecretIn(text: string): void {
  for (const value of SECRETS) {
    expect(text).not.toContain(value);
  }
}

describe('credentials in WEBHOOK_URLS', () => {
  const receiver = new WebhookReceiver();
  receiver.respond = (delivery) => (delivery.headers.authorization === basic('alice', PASSWORD) ? 200 : 401);
  let downPort: number;
  const testApp = useTestApp(
    async () => {
      downPort = await freePort();
      return {
        WEBHOOK_URLS: [
          `http://alice:${PASSWORD}@127.0.0.1:${receiver.port}/hooks/plants?token=${QUERY_SECRET}`,
          // Nothing listens there: its events die, and are logged with their last failure.
          `http://bob:${OTHER_PASSWORD}@127.0.0.1:${downPort}/hooks/down?token=${QUERY_SECRET}`,
        ].join(','),
        WEBHOOK_SECRET: webhookSecret(),
        WEBHOOK_POLL_INTERVAL_MS: '50',
        WEBHOOK_BACKOFF_BASE_MS: '50',
        WEBHOOK_MAX_ATTEMPTS: '2',
        LOG_LEVEL: 'trace',
      };
    },
    { servers: [receiver] },
  );

  it('sends them as Basic authorization, and no row, log line or metric holds them', async () => {
    await createPlants(testApp.url, 3);

    await eventually(async () => {
      const { rows } = await testApp.db.query<{ status: string }>('SELECT status FROM webhook_deliveries');
      return rows.length === 6 && rows.every((row) => row.status !== 'pending');
    }, 10_000);
    expect(receiver.received).toHaveLength(3);
    for (const delivery of receiver.received) {
      expect(delivery.headers.authorization).toBe(basic('alice', PASSWORD));
      expect(delivery.path).toBe(`/hooks/plants?token=${QUERY_SECRET}`);
    }

    const dump = await outboxDump(testApp);
    const healthy = `http://127.0.0.1:${receiver.port}/hooks/plants`;
    const down = `http://127.0.0.1:${downPort}/hooks/down`;
    expect(dump.match(/"status":"delivered"/g)).toHaveLength(3);
    expect(dump.match(new RegExp(`"subscriber":"${down}"`, 'g'))).toHaveLength(3);
    expectNoSecretIn(dump);
    await eventually(() => testApp.logs.text().includes(`to ${down} is dead after 2 attempts`));
    expectNoSecretIn(testApp.logs.text());
    const metrics = await (await fetch(`${testApp.url}/metrics`)).text();
    expect(metrics).toContain(`webhook_deliveries_total{subscriber="${healthy}",outcome="delivered"} 3`);
    expectNoSecretIn(metrics);
  });

  it('is cut out of the rows written before: their subscriber and every URL in last_error', async () => {
    const old = `http://carol:${PASSWORD}@127.0.0.1:9/hooks/old?token=${QUERY_SECRET}`;
    await testApp.db.query(
      `INSERT INTO webhook_deliveries (event_id, event_type, subscriber, payload, status, last_error)
       VALUES ($1, 'plant.created', $2, '{}', 'dead', $3), ($4, 'plant.created', $5, '{}', 'pending', 'HTTP 503')`,
      [
        randomUUID(),
        old,
        `Request cannot be constructed from a URL that includes credentials: ${old}`,
        randomUUID(),
        'https://hooks.example.com/kept',
      ],
    );

    const runner = testApp.app.get(DataSource).createQueryRunner();
    try {
      await new KeyWebhookSubscribers1795900000001().up(runner);
    } finally {
      await runner.release();
    }

    const { rows } = await testApp.db.query<{ subscriber: string; last_error: string }>(
      'SELECT subscriber, last_error FROM webhook_deliveries ORDER BY id',
    );
    expect(rows).toStrictEqual([
      {
        subscriber: 'http://127.0.0.1:9/hooks/old',
        last_error:
          'Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:9/hooks/old',
      },
      { subscriber: 'https://hooks.example.com/kept', last_error: 'HTTP 503' },
    ]);
    expectNoSecretIn(await outboxDump(testApp));
  });
});
