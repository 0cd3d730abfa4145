import { startTestApp, type TestApp } from './support/app.js';
import { closeAll } from './support/cleanup.js';
import { truncateAll } from './support/database.js';
import { TEST_TOKEN } from './support/environment.js';
import { eventually } from './support/eventually.js';
import { type PgBouncer, startPgBouncer } from './support/pgbouncer.js';
import { freePort } from './support/service-process.js';
import { WebhookReceiver, webhookSecret } from './support/webhook-receiver.js';
import { describeWith, PGBOUNCER } from './support/system-packages.js';

const WORKERS = 32;
const LOAD_MS = 4_000;

/**
 * The service behind PgBouncer in transaction pooling, as most production
 * poolers and managed PostgreSQL offerings run: each transaction may reach
 * another server connection, and no session state (a prepared statement, a
 * setting) survives from one to the next. Migrations ran straight against
 * PostgreSQL first, as docs/operations.md says.
 */
describeWith([PGBOUNCER])('behind PgBouncer in transaction pooling', () => {
  let pooler: PgBouncer;
  let receiver: WebhookReceiver;
  let testApp: TestApp;

  beforeAll(async () => {
    const direct = await startTestApp();
    await truncateAll(direct.db);
    await direct.close();
    pooler = await startPgBouncer(process.env.DATABASE_URL ?? '');
    receiver = new WebhookReceiver(await freePort());
    await receiver.start();
    testApp = await startTestApp({
      DATABASE_URL: pooler.url,
      DATABASE_MIGRATIONS_RUN: 'false',
      // Every change records its event in a transaction of its own, through the pooler too.
      WEBHOOK_URLS: receiver.url,
      WEBHOOK_SECRET: webhookSecret(),
      // 32 workers share the pool's 10 connections: on a machine busy with other suites, one could
      // wait past the default 500 ms for a connection (503), which is not what is tested here.
      DATABASE_CONNECT_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'error',
    });
  });

  afterAll(async () => {
    await closeAll(
      () => testApp?.close(),
      () => pooler?.stop(),
      () => receiver?.stop(),
    );
  });

  it('answers creates, reads, pages and patches at 32 connections, every one 2xx', async () => {
    const statuses = new Map<string, number>();
    const created: number[] = [];
    let nextId = 1;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${testApp.url}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${TEST_TOKEN}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await response.arrayBuffer();
      const key = `${method} ${path.replace(/\d+/g, '{n}')} ${response.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      return response.status;
    };
    const deadline = Date.now() + LOAD_MS;
    const worker = async (number: number) => {
      for (let turn = 0; Date.now() < deadline; turn++) {
        const known = created[(number * 7 + turn) % Math.max(created.length, 1)];
        if (turn % 4 === 0 || known === undefined) {
          const id = nextId++;
          if ((await call('POST', '/plants', { id, name: `Pooled ${id}`, tag: 'pooled' })) === 200) {
            created.push(id);
          }
        } else if (turn % 4 === 1) {
          await call('GET', `/plants/${known}`);
        } else if (turn % 4 === 2) {
          await call('GET', `/plants?limit=10&after=${Math.max(0, known - 5)}`);
        } else {
          await call('PATCH', `/plants/${known}`, { name: `Pooled ${known}, renamed ${turn}` });
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, number) => worker(number)));

    const failures = [...statuses].filter(([key]) => !/ 2\d\d$/.test(key));
    expect(failures).toStrictEqual([]);
    for (const route of [
      'POST /plants',
      'GET /plants/{n}',
      'GET /plants?limit={n}&after={n}',
      'PATCH /plants/{n}',
    ]) {
      expect(statuses.get(`${route} 200`) ?? 0).toBeGreaterThan(0);
    }
    // Each create's event, recorded in its transaction, was delivered through the pooler too.
    await eventually(
      () =>
        new Set(
          receiver.received
            .filter((delivery) => delivery.headers['webhook-event-type'] === 'plant.created')
            .map((delivery) => (JSON.parse(delivery.body) as { id: number }).id),
        ).size === created.length,
      15_000,
    );
  }, 60_000);

  it('sorts, filters and counts a list through the pooler, page after page by its cursors', async () => {
    const headers = { Authorization: `Bearer ${TEST_TOKEN}`, Prefer: 'count=exact' };
    for (const id of [-1, -2, -3, -4, -5]) {
      await fetch(`${testApp.url}/plants`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ id, name: `Listed ${-id}` }),
      });
    }

    const names: string[] = [];
    const ranges: Array<string | null> = [];
    for (let next: string | undefined = '/plants?sort=-name&name[prefix]=Listed&limit=2'; next;) {
      const page = await fetch(`${testApp.url}${next}`, { headers });
      expect(page.status).toBe(200);
      expect(page.headers.get('preference-applied')).toBe('count=exact');
      ranges.push(page.headers.get('content-range'));
      names.push(...((await page.json()) as Array<{ name: string }>).map(({ name }) => name));
      next = /^<([^>]+)>/.exec(page.headers.get('link') ?? '')?.[1];
    }

    expect(names).toStrictEqual(['Listed 5', 'Listed 4', 'Listed 3', 'Listed 2', 'Listed 1']);
    expect(ranges).toStrictEqual(['0-1/5', '2-3/5', '4-4/5']);
  });

  it('is ready, and says so, through the pooler', async () => {
    const ready = await fetch(`${testApp.url}/health/ready`);
    expect(ready.status).toBe(200);
  });
});
