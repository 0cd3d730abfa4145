import type { Express } from 'express';
import request from 'supertest';

import { startTestApp, type TestApp } from './support/app.js';

/**
 * Every route the application serves without a token, on purpose. A route
 * missing from this list must refuse a request that has no token.
 */
const PUBLIC_ROUTES = new Set([
  'GET /health/live',
  'GET /health/ready',
  // The Swagger UI and the document it shows.
  'GET /docs',
  'GET /docs/',
  'GET /docs/index.html',
  'GET /docs/LICENSE',
  'GET /docs/swagger-ui-init.js',
  'GET /docs/docs/swagger-ui-init.js',
  'GET /openapi.json',
  'GET /openapi.yaml',
]);

interface RouteLayer {
  readonly route?: { readonly path: string; readonly methods: Record<string, boolean> };
}

/** Every method and path the Express router holds, as `METHOD /path`. */
function registeredRoutes(express: Express): string[] {
  const stack = (express.router as unknown as { stack: RouteLayer[] }).stack;
  return stack.flatMap(({ route }) =>
    route
      ? Object.keys(route.methods)
          .filter((method) => method !== '_all')
          .map((method) => `${method.toUpperCase()} ${route.path}`)
      : [],
  );
}

/** A concrete URL for a route pattern: each parameter gets a harmless value. */
function concrete(path: string): string {
  return path.replace(/:\w+/g, '1');
}

describe('route inventory', () => {
  let testApp: TestApp;
  let routes: string[];

  beforeAll(async () => {
    testApp = await startTestApp();
    routes = registeredRoutes(testApp.app.getHttpAdapter().getInstance());
  });

  afterAll(async () => {
    await testApp.app.close();
  });

  it('finds the routes it guards (the inventory is not empty)', () => {
    expect(routes).toEqual(expect.arrayContaining(['POST /plants', 'GET /health/ready']));
  });

  it('refuses a request without a token on every route not declared public', async () => {
    const guarded = routes.filter((route) => !PUBLIC_ROUTES.has(route));
    expect(guarded.length).toBeGreaterThan(0);

    for (const route of guarded) {
      const [method, path] = route.split(' ');
      const response = await request(testApp.server)[method.toLowerCase() as 'get'](concrete(path));
      expect({ route, status: response.status }).toStrictEqual({ route, status: 401 });
      expect(response.body).toStrictEqual({ error: 401, message: expect.any(String) });
    }
  });

  it('serves every declared public route without a token', async () => {
    const publicRoutes = routes.filter((route) => PUBLIC_ROUTES.has(route));
    expect(publicRoutes.length).toBeGreaterThan(0);

    for (const route of publicRoutes) {
      const [method, path] = route.split(' ');
      const response = await request(testApp.server)[method.toLowerCase() as 'get'](concrete(path));
      expect({ route, status: response.status }).not.toStrictEqual({ route, status: 401 });
    }
  });

  it('declares no public route that the application does not have', () => {
    expect([...PUBLIC_ROUTES].filter((route) => !routes.includes(route))).toStrictEqual([]);
  });
});
