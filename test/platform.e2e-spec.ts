import request from 'supertest';

import { type TestApp, useTestApp } from './support/app.js';
import { TEST_TOKEN } from './support/environment.js';
import { eventually } from './support/eventually.js';
import { AUTH } from './support/factories.js';
import { JwtIssuer } from './support/jwt-issuer.js';
import { verifyDelivery, WebhookReceiver, webhookSecret } from './support/webhook-receiver.js';
import { FixtureOrdersModule } from './fixtures/orders/orders.module.js';

/** A POST /fixture-orders of `text` as it is, labelled `contentType`. */
function postText(testApp: TestApp, text: string, contentType = 'application/json') {
  return request(testApp.server)
    .post('/fixture-orders')
    .set(AUTH)
    .set('Content-Type', contentType)
    .send(text);
}

/**
 * A resource that exists only in the tests (`test/fixtures/orders/`: module,
 * controller, service, entity, a DTO with nested items, its own migration),
 * written the way NestJS's documentation teaches, and added with one import.
 * It gets every guarantee the plants routes have, with no other edit.
 */
describe('a new resource: one folder and one import', () => {
  const issuer = new JwtIssuer();
  const testApp = useTestApp(() => ({ ...issuer.serviceEnv, LOG_LEVEL: 'error' }), {
    imports: [FixtureOrdersModule],
    servers: [issuer],
  });

  const order = (overrides: Record<string, unknown> = {}) => ({
    id: 1,
    customer: 'Kew Gardens',
    items: [
      { sku: 'FERN-01', quantity: 2 },
      { sku: 'MOSS-07', quantity: 1 },
    ],
    ...overrides,
  });
  const post = (body: unknown) =>
    request(testApp.server)
      .post('/fixture-orders')
      .set(AUTH)
      .send(body as object);

  it('has its table from its own migration, found in its folder and applied with the others', async () => {
    const { rows } = await testApp.db.query<{ name: string }>(
      "SELECT name FROM typeorm_migrations WHERE name = 'CreateFixtureOrders1795905000000'",
    );
    expect(rows).toHaveLength(1);
  });

  it('stores and reads an order, its nested items and an int64 id kept exactly', async () => {
    const body = order({ id: 9223372036854775807n });
    const created = await postText(
      testApp,
      '{"id": 9223372036854775807, "customer": "Kew Gardens", "items": [{"sku": "FERN-01", "quantity": 2}]}',
    );

    expect(created.status).toBe(200);
    expect(created.body).toStrictEqual({
      id: '9223372036854775807',
      customer: body.customer,
      items: [{ sku: 'FERN-01', quantity: 2 }],
    });
    const read = await request(testApp.server).get('/fixture-orders/9223372036854775807').set(AUTH);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe('9223372036854775807');
  });

  it('validates nested items fully, naming each broken rule by its path', async () => {
    const response = await post(
      order({
        items: [{ sku: '', quantity: 2 }, { sku: 'MOSS-07', quantity: 0, colour: 'green' }, 'not an item'],
      }),
    );

    expect(response.status).toBe(400);
    expect(response.body.error).toBe(400);
    const problems = (response.body.message as string).split('; ');
    expect(problems).toEqual(
      expect.arrayContaining([
        'property items[1].colour is not allowed',
        'items[0].sku must be longer than or equal to 1 characters',
        'items[1].quantity must not be less than 1',
        expect.stringMatching(/^items\[2\]/),
      ]),
    );
  });

  it('refuses unknown properties, non-objects and an empty list at the top level too', async () => {
    await expect(post(order({ extra: true }))).resolves.toMatchObject({
      status: 400,
      body: { error: 400, message: 'property extra is not allowed' },
    });
    await expect(post(order({ items: [] }))).resolves.toMatchObject({
      status: 400,
      body: { error: 400, message: 'items must contain at least 1 elements' },
    });
    await expect(post(order({ id: 1.5 }))).resolves.toMatchObject({
      status: 400,
      body: { message: 'id must be an integer from -9223372036854775808 to 9223372036854775807' },
    });
  });

  it('gives @Body() the JSON rules: 415 for another media type, 400 for no body or bad JSON, 413 when too large', async () => {
    const plain = await postText(testApp, '{"id": 1}', 'text/plain');
    expect(plain.status).toBe(415);
    expect(plain.body).toStrictEqual({ error: 415, message: 'Content-Type must be application/json' });

    const none = await request(testApp.server).post('/fixture-orders').set(AUTH);
    expect(none.body).toStrictEqual({ error: 400, message: 'A JSON request body is required' });

    const broken = await postText(testApp, '{"id": 1,');
    expect(broken.status).toBe(400);
    expect(broken.body.message).toMatch(/^Request body is not valid JSON/);

    const huge = await post(order({ customer: 'x'.repeat(20_000) }));
    expect(huge.status).toBe(413);
  });

  it('validates @Param() with a DTO: 400 naming the parameter', async () => {
    const response = await request(testApp.server).get('/fixture-orders/abc').set(AUTH);

    expect(response.status).toBe(400);
    expect(response.body).toStrictEqual({
      error: 400,
      message: 'id must be an integer from -9223372036854775808 to 9223372036854775807',
    });
  });

  it('answers its own 404 and 409 wording', async () => {
    await expect(request(testApp.server).get('/fixture-orders/5').set(AUTH)).resolves.toMatchObject({
      status: 404,
      body: { error: 404, message: 'No order has the id 5' },
    });
    expect((await post(order())).status).toBe(200);
    await expect(post(order())).resolves.toMatchObject({
      status: 409,
      body: { error: 409, message: 'Order 1 exists already' },
    });
  });

  it("answers a handler's HttpException and an unexpected error in the Error shape", async () => {
    const teapot = await request(testApp.server).post('/fixture-orders/418/brew').set(AUTH);
    expect(teapot.status).toBe(418);
    expect(teapot.body).toStrictEqual({ error: 418, message: 'Orders do not brew tea' });

    const fault = await request(testApp.server).post('/fixture-orders/1/brew').set(AUTH);
    expect(fault.status).toBe(500);
    expect(fault.body).toStrictEqual({ error: 500, message: 'Internal server error' });
  });

  it('needs a token on every route by default', async () => {
    for (const call of [
      request(testApp.server).post('/fixture-orders').send(order()),
      request(testApp.server).get('/fixture-orders/1'),
      request(testApp.server).post('/fixture-orders/1/brew'),
    ]) {
      const response = await call;
      expect(response.status).toBe(401);
    }
  });

  it('asks a narrower token for scopes derived from its path: fixture-orders:read to read, fixture-orders:write for the rest', async () => {
    const reader = await issuer.token({ scope: 'fixture-orders:read' });
    const plantsOnly = await issuer.token({ scope: 'plants:read plants:write' });
    expect((await post(order())).status).toBe(200);

    const read = await request(testApp.server)
      .get('/fixture-orders/1')
      .set('Authorization', `Bearer ${reader}`);
    expect(read.status).toBe(200);

    const write = await request(testApp.server)
      .post('/fixture-orders')
      .set('Authorization', `Bearer ${reader}`)
      .send(order({ id: 2 }));
    expect(write.status).toBe(403);
    expect(write.headers['www-authenticate']).toContain('scope="fixture-orders:write"');

    const elsewhere = await request(testApp.server)
      .get('/fixture-orders/1')
      .set('Authorization', `Bearer ${plantsOnly}`);
    expect(elsewhere.status).toBe(403);
    // A static token carries every scope, those of resources it never heard of included.
    expect(
      (await request(testApp.server).get('/fixture-orders/1').set('Authorization', `Bearer ${TEST_TOKEN}`))
        .status,
    ).toBe(200);
  });

  it('counts its own metric in the service registry', async () => {
    const created = async () =>
      Number(
        /^fixture_orders_created_total (\d+)$/m.exec(
          (await request(testApp.server).get('/metrics')).text,
        )?.[1],
      );
    const before = await created();

    await post(order());

    expect(before).toBeGreaterThanOrEqual(0);
    await expect(created()).resolves.toBe(before + 1);
  });

  it('appears in the OpenAPI document: its tag, operations, nested schema, error wording and scopes', async () => {
    const document = (await request(testApp.server).get('/openapi.json')).body;

    expect(document.tags).toContainEqual({
      name: 'fixture-orders',
      description: 'Orders (a resource of the tests)',
    });
    expect(document.paths['/fixture-orders'].post.tags).toStrictEqual(['fixture-orders']);
    expect(document.paths['/fixture-orders/{id}'].get.responses['404']).toMatchObject({
      description: 'No order has this id',
    });
    expect(document.paths['/fixture-orders'].post.responses['409']).toMatchObject({
      description: 'An order with this id exists already',
    });
    expect(document.components.schemas.NewFixtureOrderDto.properties.items).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/FixtureOrderItemDto' },
    });
    expect(document.components.securitySchemes.bearerAuth.description).toContain('`fixture-orders:write`');
  });
  it('gets ETags, 304, merge-patch updates and conditional deletes from its @VersionColumn() alone', async () => {
    await post(order({ id: 3 })).expect(200);
    const read = await request(testApp.server).get('/fixture-orders/3').set(AUTH);
    expect(read.headers.etag).toBe('"1"');
    await request(testApp.server).get('/fixture-orders/3').set(AUTH).set('If-None-Match', '"1"').expect(304);

    const patched = await request(testApp.server)
      .patch('/fixture-orders/3')
      .set(AUTH)
      .set({ 'Content-Type': 'application/merge-patch+json', 'If-Match': '"1"' })
      .send('{"customer": "Wisley"}');
    expect(patched.status).toBe(200);
    expect(patched.headers.etag).toBe('"2"');
    expect(patched.body).toStrictEqual({ ...order({ id: '3' }), customer: 'Wisley' });

    const stale = await request(testApp.server)
      .patch('/fixture-orders/3')
      .set(AUTH)
      .set('If-Match', '"1"')
      .send({ customer: 'Chelsea' });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ error: 412 });
    const unknown = await request(testApp.server).patch('/fixture-orders/3').set(AUTH).send({ items: [] });
    expect(unknown.body).toStrictEqual({ error: 400, message: 'property items is not allowed' });
    await request(testApp.server).delete('/fixture-orders/3').set(AUTH).set('If-Match', '"1"').expect(412);
    await request(testApp.server).delete('/fixture-orders/3').set(AUTH).set('If-Match', '"2"').expect(204);
    await request(testApp.server).get('/fixture-orders/3').set(AUTH).expect(404);
    await request(testApp.server).delete('/fixture-orders/3').set(AUTH).expect(404);
  });
});

/** Its changes announced through the outbox, each in its own transaction. */
describe("a new resource's webhook events", () => {
  const secret = webhookSecret();
  const receiver = new WebhookReceiver();
  const testApp = useTestApp(() => ({ ...receiver.serviceEnv(secret), LOG_LEVEL: 'error' }), {
    imports: [FixtureOrdersModule],
    servers: [receiver],
  });

  beforeEach(() => {
    receiver.received.length = 0;
  });

  it('announces each order it stores as fixture_order.created, written with the order, its nested items as JSON', async () => {
    const body =
      '{"id": 9223372036854775807, "customer": "Kew Gardens", "items": [{"sku": "FERN-01", "quantity": 2}]}';
    await postText(testApp, body).expect(200);
    // The same order again is refused, and announced no more.
    await postText(testApp, body).expect(409);

    await eventually(() => receiver.received.length === 1);
    const [delivery] = receiver.received;
    expect(delivery.headers['webhook-event-type']).toBe('fixture_order.created');
    expect(() => verifyDelivery(secret, delivery)).not.toThrow();
    expect(JSON.parse(delivery.body.replace(/"id":(\d+)/, '"id":"$1"'))).toStrictEqual({
      id: '9223372036854775807',
      customer: 'Kew Gardens',
      items: [{ sku: 'FERN-01', quantity: 2 }],
    });
    const { rows } = await testApp.db.query<{ events: number }>(
      "SELECT count(*)::int AS events FROM webhook_deliveries WHERE event_type = 'fixture_order.created'",
    );
    expect(rows).toStrictEqual([{ events: 1 }]);
    await expect(
      request(testApp.server).get('/fixture-orders/9223372036854775807').set(AUTH),
    ).resolves.toMatchObject({
      status: 200,
      body: {
        id: '9223372036854775807',
        customer: 'Kew Gardens',
        items: [{ sku: 'FERN-01', quantity: 2 }],
      },
    });
  });
  it('announces its updates and deletes, each in the transaction that makes it, and no refused change', async () => {
    await request(testApp.server)
      .post('/fixture-orders')
      .set(AUTH)
      .send({ id: 5, customer: 'Kew Gardens', items: [{ sku: 'FERN-01', quantity: 2 }] })
      .expect(200);
    await request(testApp.server)
      .patch('/fixture-orders/5')
      .set(AUTH)
      .send({ customer: 'Wisley' })
      .expect(200);
    await request(testApp.server).delete('/fixture-orders/5').set(AUTH).set('If-Match', '"1"').expect(412);
    await request(testApp.server).delete('/fixture-orders/5').set(AUTH).set('If-Match', '"2"').expect(204);

    await eventually(() => receiver.received.length === 3);
    const events = receiver.received.map((delivery) => ({
      type: delivery.headers['webhook-event-type'],
      body: JSON.parse(delivery.body) as unknown,
    }));
    expect(events).toHaveLength(3);
    // Delivered at least once each, not necessarily in order.
    // Each payload is the order as the API answers it (its id as text, as this resource writes it).
    expect(events).toEqual(
      expect.arrayContaining([
        {
          type: 'fixture_order.created',
          body: { id: '5', customer: 'Kew Gardens', items: [{ sku: 'FERN-01', quantity: 2 }] },
        },
        {
          type: 'fixture_order.updated',
          body: { id: '5', customer: 'Wisley', items: [{ sku: 'FERN-01', quantity: 2 }] },
        },
        { type: 'fixture_order.deleted', body: { id: '5' } },
      ]),
    );
  });
});
