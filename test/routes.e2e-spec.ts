import { jest } from '@jest/globals';
import request from 'supertest';

import { AllowedMethods } from '../src/core/http/allowed-methods.js';
import { DeclaredRoutes } from '../src/core/http/declared-routes.js';
import { type TestApp, useTestApp } from './support/app.js';
import { declaredRoutes } from './support/routes.js';

/**
 * Every route the application serves without a token, on purpose. A route
 * missing from this list must refuse a request that has no token.
 */
const PUBLIC_ROUTES = new Set([
  'GET /health/live',
  'GET /health/ready',
  // Prometheus scrapes without a token; METRICS_ENABLED=false removes the route.
  'GET /metrics',
]);

/** Served by the Swagger module, outside Nest's router and its guards: public by design. */
const DOCUMENTATION_ROUTES = [
  'GET /docs',
  'GET /docs/swagger-ui-init.js',
  'GET /openapi.json',
  'GET /openapi.yaml',
];

/** A concrete URL for a route pattern: each parameter gets a harmless value. */
function concrete(path: string): string {
  return path.replace(/:\w+/g, '1');
}

async function statusWithoutToken(testApp: TestApp, route: string): Promise<number> {
  const [method, path] = route.split(' ');
  const response = await request(testApp.server)[method.toLowerCase() as 'get'](concrete(path));
  return response.status;
}

describe('route inventory', () => {
  const testApp = useTestApp();
  let routes: string[];

  beforeAll(() => {
    routes = declaredRoutes(testApp.app);
  });

  it('finds every route the application maps (the inventory is not empty)', () => {
    expect(routes).toEqual(expect.arrayContaining(['POST /plants', 'GET /health/ready']));
  });

  it('refuses a request without a token on every route not declared public', async () => {
    const guarded = routes.filter((route) => !PUBLIC_ROUTES.has(route));
    expect(guarded.length).toBeGreaterThan(0);

    for (const route of guarded) {
      const status = await statusWithoutToken(testApp, route);
      expect({ route, status }).toStrictEqual({ route, status: 401 });
    }
  });

  it('serves every declared public route, and the documentation, without a token', async () => {
    for (const route of [...PUBLIC_ROUTES, ...DOCUMENTATION_ROUTES]) {
      const status = await statusWithoutToken(testApp, route);
      expect({ route, status }).toStrictEqual({ route, status: 200 });
    }
  });

  it('documents the public routes (those it documents) as needing no token, and every other as needing one', async () => {
    const document = (await request(testApp.server).get('/openapi.json').expect(200)).body as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({
        route: `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
        needsNoToken: operation.security?.length === 0,
      })),
    );

    expect(documented.length).toBeGreaterThan(PUBLIC_ROUTES.size);
    expect(documented).toStrictEqual(
      documented.map(({ route }) => ({ route, needsNoToken: PUBLIC_ROUTES.has(route) })),
    );
  });

  it('declares no public route that the application does not have', () => {
    expect([...PUBLIC_ROUTES].filter((route) => !routes.includes(route))).toStrictEqual([]);
  });
});

describe('the methods each path allows', () => {
  const testApp = useTestApp();

  it('are read from the routes once, for both the JSON body parser and the exception filter', async () => {
    const read = jest.spyOn(DeclaredRoutes.prototype, 'all');
    const asked = jest.spyOn(testApp.app.get(AllowedMethods), 'for');
    try {
      // A body the parser refuses, where no route is: it asks whether the path has the method, and
      // the filter asks again for the 404.
      await request(testApp.server)
        .post('/nowhere')
        .set('Content-Type', 'application/json')
        .send('{"id": 1,')
        .expect(404);
      // A path that has other methods: the filter asks which, for 405 and Allow.
      await request(testApp.server).put('/plants').expect(405);

      expect(asked).toHaveBeenCalledTimes(3);
      expect(read).toHaveBeenCalledTimes(1);
    } finally {
      read.mockRestore();
      asked.mockRestore();
    }
  });
});
