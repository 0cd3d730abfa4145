import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Express, Request, Response } from 'express';

import { LeanExpressAdapter } from './lean-express.adapter.js';

describe('LeanExpressAdapter', () => {
  let adapter: LeanExpressAdapter;
  let app: Express;
  let server: Server;
  let base: string;

  beforeEach(async () => {
    adapter = new LeanExpressAdapter();
    adapter.initHttpServer({});
    app = adapter.getInstance<Express>();
    server = adapter.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("builds requests and responses with the app's prototypes, before Express sees them", async () => {
    const prototypes: object[] = [];
    // Runs before Express's own handler on the same event.
    server.prependListener('request', (request: IncomingMessage, response: object) => {
      prototypes.push(Object.getPrototypeOf(request) as object, Object.getPrototypeOf(response) as object);
    });
    app.get('/', (_request: Request, response: Response) => response.end());

    expect((await fetch(base)).status).toBe(200);
    expect(prototypes).toHaveLength(2);
    expect(prototypes[0]).toBe(app.request);
    expect(prototypes[1]).toBe(app.response);
  });

  it('keeps what Express adds to requests and responses', async () => {
    app.get('/things/:id', (request: Request, response: Response) => {
      response.status(201).json({
        id: request.params.id,
        path: request.path,
        query: request.query,
        app: request.app === app,
      });
    });

    const response = await fetch(`${base}/things/7?colour=green`);

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    // toEqual: the parsed body comes from another realm than the test.
    expect(await response.json()).toEqual({
      id: '7',
      path: '/things/7',
      query: { colour: 'green' },
      app: true,
    });
  });

  it('writes a plain object answer as JSON, with its length', async () => {
    app.get('/', (_request: Request, response: Response) => adapter.reply(response, { name: 'Fern' }, 200));

    const response = await fetch(base);

    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-length')).toBe('15');
    expect(await response.text()).toBe('{"name":"Fern"}');
  });
});
