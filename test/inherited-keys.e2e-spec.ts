import request from 'supertest';

import { useTestApp } from './support/app.js';
import { AUTH } from './support/factories.js';
import { FixtureGardensModule } from './fixtures/gardens/gardens.module.js';
import { FixtureOrdersModule } from './fixtures/orders/orders.module.js';
import { FixtureWidgetsModule } from './fixtures/widgets/widgets.module.js';

/**
 * Keys naming a member every object inherits (`toString`, `valueOf`, `hasOwnProperty`, `constructor`,
 * `__proto__`…) are refused by name like any undeclared key, in every resource's bodies, nested or
 * not, and query strings: Nest's ValidationPipe deletes some before the whitelist sees them, and
 * class-transformer skips the others. The plants' own cases are in the hostile-request corpus.
 */
describe('keys naming inherited members, in the resources of the tests', () => {
  const testApp = useTestApp(
    { LOG_LEVEL: 'error' },
    { imports: [FixtureOrdersModule, FixtureGardensModule, FixtureWidgetsModule] },
  );

  const post = (path: string, body: object) =>
    request(testApp.server)
      .post(path)
      .set(AUTH)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body));
  const get = (path: string) => request(testApp.server).get(path).set(AUTH);
  const order = { id: 1, customer: 'Kew Gardens', items: [{ sku: 'FERN-01', quantity: 2 }] };

  it.each([
    ['an order', '/fixture-orders', { ...order, toString: 'x' }, 'property toString is not allowed'],
    [
      "an order's nested item",
      '/fixture-orders',
      { ...order, items: [{ sku: 'FERN-01', quantity: 2, isPrototypeOf: 1 }] },
      'property items[0].isPrototypeOf is not allowed',
    ],
    [
      'a garden',
      '/fixture-gardens',
      { name: 'Kew', __lookupGetter__: 'x' },
      'property __lookupGetter__ is not allowed',
    ],
    [
      'a shrub',
      '/fixture-shrubs',
      { name: 'Box', hasOwnProperty: true },
      'property hasOwnProperty is not allowed',
    ],
    ['a widget (a DTO without rules)', '/fixture-widgets', { valueOf: 0 }, 'property valueOf is not allowed'],
  ])('in the body of %s', async (_resource, path, body, message) => {
    const response = await post(path, body);

    expect(response.body).toStrictEqual({ error: 400, message });
  });

  it.each([
    ['/fixture-shrubs?__proto__=1', '__proto__'],
    ['/fixture-shrubs?constructor=1', 'constructor'],
    ['/fixture-shrubs?toString=x', 'toString'],
    ['/fixture-shrubs?sort=id&valueOf=1', 'valueOf'],
    ['/fixture-shrubs?foo=1', 'foo'],
  ])('in the query string %s', async (path, key) => {
    const response = await get(path);

    expect(response.body).toStrictEqual({ error: 400, message: `query parameter ${key} is not allowed` });
  });
});
