import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';

import { closeAll } from '../support/cleanup.js';
import { truncateAll } from '../support/database.js';
import { TEST_TOKEN } from '../support/environment.js';
import { eventually } from '../support/eventually.js';
import { OtlpReceiver, type ReceivedSpan, SpanKind } from '../support/otlp-receiver.js';
import { freePort, startService, type ServiceProcess } from '../support/service-process.js';
import { WebhookReceiver, webhookSecret } from '../support/webhook-receiver.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

/** A caller's trace: its ids, and the `traceparent` header that carries them. */
function callerTrace(): { traceId: string; parentId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

let nextId = 1;

/** A create with values that appear nowhere else, so that a search for them is meaningful. */
function newPlant(): { id: number; name: string; tag: string } {
  const unique = randomBytes(6).toString('hex');
  return { id: nextId++, name: `Fern ${unique}`, tag: `tag-${unique}` };
}

function create(url: string, plant: object, traceparent?: string): Promise<Response> {
  return fetch(`${url}/plants`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${TEST_TOKEN}`,
      'Content-Type': 'application/json',
      ...(traceparent && { traceparent }),
    },
    body: JSON.stringify(plant),
  });
}

/** The compiled service as a test runs it (on the test database, taking the test token), with `env` added. */
function startTestService(env: Record<string, string>): Promise<ServiceProcess> {
  return startService({
    NODE_ENV: 'test',
    AUTH_TOKENS: TEST_TOKEN,
    DATABASE_URL: process.env.DATABASE_URL,
    ...env,
  });
}

function isInsert(span: ReceivedSpan): boolean {
  return /INSERT INTO "?plants"?/.test(String(span.attributes['db.query.text']));
}

describe('traces (the compiled service, exporting to an OTLP/HTTP receiver)', () => {
  const collector = new OtlpReceiver();
  // In the endpoint and the exporter's headers: neither may be logged.
  const collectorPassword = `pw${randomBytes(8).toString('hex')}`;
  const collectorApiKey = `key${randomBytes(8).toString('hex')}`;
  const secret = webhookSecret();
  let webhooks: WebhookReceiver;
  let service: ServiceProcess;
  let db: pg.Pool;
  /** What the requests sent: none of it may be in any exported span. */
  const sent: string[] = [TEST_TOKEN, collectorPassword, collectorApiKey, secret];

  beforeAll(async () => {
    await collector.start();
    webhooks = new WebhookReceiver(await freePort());
    await webhooks.start();
    db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    await truncateAll(db);
    service = await startTestService({
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url.replace('//', `//collector:${collectorPassword}@`),
      OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${collectorApiKey}`,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      // Time for the test to hold a statement on a lock.
      DATABASE_STATEMENT_TIMEOUT_MS: '5000',
      WEBHOOK_URLS: webhooks.url,
      WEBHOOK_SECRET: secret,
    });
  });

  afterAll(async () => {
    await closeAll(
      () => service?.stop('SIGKILL'),
      () => webhooks?.stop(),
      () => collector.stop(),
      () => db?.end(),
    );
  });

  it('says at start-up that it traces, and where to, with neither the credentials nor the headers', () => {
    const output = service.output();
    expect(output).toContain(
      `"context":"Tracing","msg":"Tracing is on: spans go to ${collector.url}/v1/traces (OTLP http/protobuf), sampler parentbased_always_on"`,
    );
    expect(output).not.toContain(collectorPassword);
    expect(output).not.toContain(collectorApiKey);
  });

  it("continues the caller's trace: the request, its handler, the batch and its INSERT", async () => {
    const { traceId, parentId, traceparent } = callerTrace();
    const plant = newPlant();
    sent.push(plant.name, plant.tag);

    const response = await create(service.url, plant, traceparent);
    expect(response.status).toBe(200);

    await eventually(() => collector.trace(traceId).some(isInsert), 10_000);
    const spans = collector.trace(traceId);
    const named = (name: string) => spans.find((span) => span.name === name);

    const server = named('POST /plants');
    expect(server).toMatchObject({
      kind: SpanKind.SERVER,
      parentSpanId: parentId,
      attributes: expect.objectContaining({
        'http.request.method': 'POST',
        'http.route': '/plants',
        'http.response.status_code': 200,
        'url.path': '/plants',
      }),
      resource: expect.objectContaining({ 'service.name': 'plant-store' }),
    });
    const handler = named('PlantsController.create');
    expect(handler).toMatchObject({ parentSpanId: server?.spanId });
    const batch = named('plants batch insert');
    expect(batch).toMatchObject({
      parentSpanId: handler?.spanId,
      links: [{ traceId, spanId: handler?.spanId }],
      attributes: { 'plant_store.batch.size': 1 },
    });
    const insert = spans.find(isInsert);
    expect(insert).toMatchObject({
      kind: SpanKind.CLIENT,
      parentSpanId: batch?.spanId,
      attributes: expect.objectContaining({ 'db.system.name': 'postgresql' }),
    });
    // The statement's text, never its values.
    expect(Object.keys(insert!.attributes).filter((key) => /value|param/i.test(key))).toStrictEqual([]);
  });

  it('links a batched INSERT to the span of every create it serves', async () => {
    const callers = Array.from({ length: 40 }, () => ({ ...callerTrace(), plant: newPlant() }));
    sent.push(...callers.flatMap(({ plant }) => [plant.name, plant.tag]));

    // While a lock holds the first statement, the other creates queue, and then go together.
    const lock = await db.connect();
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE plants IN SHARE ROW EXCLUSIVE MODE');
    const statuses = Promise.all(
      callers.map(({ plant, traceparent }) => create(service.url, plant, traceparent).then((r) => r.status)),
    );
    await eventually(async () => {
      const { rows } = await db.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ~ 'INSERT INTO "?plants"?'`,
      );
      return rows[0].waiting > 0;
    });
    await sleep(500);
    await lock.query('COMMIT');
    lock.release();
    expect((await statuses).every((status) => status === 200)).toBe(true);

    // A create's handler span, by trace; and the batches, each linked to the creates it serves.
    const handlers = () =>
      new Map(
        callers.flatMap(({ traceId }) =>
          collector
            .trace(traceId)
            .filter((span) => span.name === 'PlantsController.create')
            .map((span) => [traceId, span.spanId] as const),
        ),
      );
    const batches = () =>
      collector.spans.filter(
        (span) =>
          span.name === 'plants batch insert' &&
          span.links.some((link) => callers.some(({ traceId }) => traceId === link.traceId)),
      );
    const linked = () => batches().flatMap((batch) => batch.links);
    await eventually(
      () =>
        handlers().size === callers.length &&
        callers.every(({ traceId }) => linked().some((link) => link.traceId === traceId)) &&
        batches().every((batch) => collector.trace(batch.traceId).some(isInsert)),
      10_000,
    );

    // Creates sent together shared a statement, and each create is linked from the one that wrote it.
    expect(Math.max(...batches().map((batch) => batch.links.length))).toBeGreaterThan(1);
    expect(new Map(linked().map((link) => [link.traceId, link.spanId]))).toStrictEqual(handlers());
    for (const batch of batches()) {
      // In the trace of one of the creates it serves, with its INSERT beneath it.
      expect(batch.links.map((link) => link.traceId)).toContain(batch.traceId);
      expect(collector.trace(batch.traceId).find(isInsert)?.parentSpanId).toBe(batch.spanId);
    }
  });

  it('sends each webhook delivery with a traceparent: the span of that attempt', async () => {
    await eventually(() => webhooks.received.length >= 41, 10_000);
    for (const delivery of webhooks.received) {
      const [, traceId, spanId] = TRACEPARENT.exec(String(delivery.headers.traceparent)) ?? [];
      expect(traceId).toBeDefined();
      await eventually(() => collector.trace(traceId).some((span) => span.spanId === spanId), 10_000);
      expect(collector.trace(traceId).find((span) => span.spanId === spanId)).toMatchObject({
        name: 'webhook plant.created',
        kind: SpanKind.CLIENT,
        attributes: expect.objectContaining({
          'url.full': webhooks.url,
          'http.response.status_code': 200,
          'webhook.event.type': 'plant.created',
          'webhook.event.id': delivery.headers['webhook-id'],
        }),
      });
    }
  });

  it('links each delivery to the request whose change stored the event, a batched create’s or an update’s', async () => {
    const creates = Array.from({ length: 3 }, () => ({ ...callerTrace(), plant: newPlant() }));
    const update = callerTrace();
    sent.push(...creates.flatMap(({ plant }) => [plant.name, plant.tag]));
    expect(
      (
        await Promise.all(creates.map(({ plant, traceparent }) => create(service.url, plant, traceparent)))
      ).map(({ status }) => status),
    ).toStrictEqual([200, 200, 200]);
    const changed = await fetch(`${service.url}/plants/${creates[0].plant.id}`, {
      method: 'PATCH',
      headers: {
        Authorization: `Bearer ${TEST_TOKEN}`,
        'Content-Type': 'application/merge-patch+json',
        traceparent: update.traceparent,
      },
      body: JSON.stringify({ tag: null }),
    });
    expect(changed.status).toBe(200);

    const expectations = [
      ...creates.map(({ traceId, plant }) => ({
        traceId,
        id: plant.id,
        type: 'plant.created',
        handlerName: 'PlantsController.create',
      })),
      {
        traceId: update.traceId,
        id: creates[0].plant.id,
        type: 'plant.updated',
        handlerName: 'PlantsController.update',
      },
    ];
    for (const { traceId, id, type, handlerName } of expectations) {
      const delivery = () =>
        webhooks.received.find(
          (received) =>
            received.headers['webhook-event-type'] === type &&
            (JSON.parse(received.body) as { id: number }).id === id,
        );
      await eventually(() => delivery() !== undefined, 10_000);
      const [, deliveryTrace, deliverySpan] = TRACEPARENT.exec(String(delivery()!.headers.traceparent)) ?? [];
      const handler = () => collector.trace(traceId).find((span) => span.name === handlerName);
      const attempt = () => collector.trace(deliveryTrace).find((span) => span.spanId === deliverySpan);
      await eventually(() => handler() !== undefined && attempt() !== undefined, 10_000);

      // The delivery's own trace is not the request's: it links to it, as a consumer to its producer.
      expect(deliveryTrace).not.toBe(traceId);
      expect(attempt()!.links).toStrictEqual([{ traceId, spanId: handler()!.spanId }]);
    }
  });

  it('keeps query strings out of spans, and does not trace health probes', async () => {
    const tag = `query-${randomBytes(6).toString('hex')}`;
    sent.push(tag);
    const probe = callerTrace();
    const list = callerTrace();

    expect(
      (await fetch(`${service.url}/health/ready`, { headers: { traceparent: probe.traceparent } })).ok,
    ).toBe(true);
    const response = await fetch(`${service.url}/plants?tag=${tag}&limit=5`, {
      headers: { Authorization: `Bearer ${TEST_TOKEN}`, traceparent: list.traceparent },
    });
    expect(response.status).toBe(200);

    await eventually(
      () => collector.trace(list.traceId).some((span) => span.kind === SpanKind.SERVER),
      10_000,
    );
    const server = collector.trace(list.traceId).find((span) => span.kind === SpanKind.SERVER);
    expect(server?.name).toBe('GET /plants');
    expect(server?.attributes).not.toHaveProperty('url.query');
    // Exported in order: the probe's spans, had there been any, would be in by now.
    expect(collector.trace(probe.traceId)).toStrictEqual([]);
  });

  it('exports no request data, token or secret: no value sent is in any span', () => {
    const exported = collector.payloads.join('\n');
    expect(sent.filter((value) => exported.includes(value))).toStrictEqual([]);
  });

  it('speaks protobuf, the specification’s default, when no protocol is set', () => {
    expect(collector.contentTypes.length).toBeGreaterThan(0);
    expect(new Set(collector.contentTypes)).toStrictEqual(new Set(['application/x-protobuf']));
  });
});

describe('traces at shutdown, over http/json', () => {
  it('are exported before the process exits on SIGTERM, in the encoding the traces’ own variable names', async () => {
    const collector = new OtlpReceiver();
    await collector.start();
    let service: ServiceProcess | undefined;
    try {
      service = await startTestService({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
        // The signal's own variable wins over the general one.
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        // Nothing goes out on a timer during the test: only the shutdown exports.
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      });
      const { traceId, traceparent } = callerTrace();
      expect((await create(service.url, newPlant(), traceparent)).status).toBe(200);
      expect(collector.spans).toStrictEqual([]);

      expect(await service.stop('SIGTERM')).toBe(0);
      expect(collector.trace(traceId).map((span) => span.name)).toEqual(
        expect.arrayContaining(['POST /plants', 'PlantsController.create', 'plants batch insert']),
      );
      expect(collector.trace(traceId).some(isInsert)).toBe(true);
      expect(new Set(collector.contentTypes)).toStrictEqual(new Set(['application/json']));
      expect(service.output()).toContain('(OTLP http/json)');
    } finally {
      await service?.stop('SIGKILL');
      await collector.stop();
    }
  });
});

describe('with no OTLP endpoint', () => {
  it('does not trace, says so, and sends webhooks without a traceparent', async () => {
    const webhooks = new WebhookReceiver(await freePort());
    await webhooks.start();
    let service: ServiceProcess | undefined;
    try {
      service = await startTestService({
        WEBHOOK_URLS: webhooks.url,
        WEBHOOK_SECRET: webhookSecret(),
      });
      expect(service.output()).toContain(
        '"context":"Tracing","msg":"Tracing is off: neither OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set"',
      );
      expect((await create(service.url, newPlant(), callerTrace().traceparent)).status).toBe(200);
      await eventually(() => webhooks.received.length === 1, 10_000);
      expect(webhooks.received[0].headers).not.toHaveProperty('traceparent');
    } finally {
      await service?.stop('SIGKILL');
      await webhooks.stop();
    }
  });
});
