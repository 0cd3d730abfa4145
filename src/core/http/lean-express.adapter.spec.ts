import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { StreamableFile } from '@nestjs/common';
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

  it('keeps the headers and the status set before it, as interceptors, @Header() and @HttpCode() set them', async () => {
    app.get('/', (_request: Request, response: Response) => {
      response.setHeader('X-Envelope', 'data');
      response.setHeader('Cache-Control', 'no-store');
      adapter.reply(response, { data: { id: 7n ** 23n } }, 202);
    });

    const response = await fetch(base);

    expect(response.status).toBe(202);
    expect(response.headers.get('x-envelope')).toBe('data');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toBe(`{"data":{"id":${7n ** 23n}}}`);
  });

  it("leaves class instances (ids beyond 2^53 kept), streams and answers with a Content-Type of their own to Nest's reply", async () => {
    class WidgetView {
      constructor(readonly id: number | bigint) {}
    }
    app.get('/instance', (_request: Request, response: Response) =>
      adapter.reply(response, new WidgetView(9223372036854775807n), 200),
    );
    app.get('/file', (_request: Request, response: Response) =>
      adapter.reply(response, new StreamableFile(Buffer.from('manual'), { type: 'text/plain' }), 200),
    );
    app.get('/typed', (_request: Request, response: Response) => {
      response.setHeader('Content-Type', 'application/problem+json');
      adapter.reply(response, { title: 'Gone' }, 410);
    });

    const instance = await fetch(`${base}/instance`);
    expect(instance.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await instance.text()).toBe('{"id":9223372036854775807}');

    const file = await fetch(`${base}/file`);
    expect(file.headers.get('content-type')).toBe('text/plain');
    expect(await file.text()).toBe('manual');

    const typed = await fetch(`${base}/typed`);
    expect(typed.status).toBe(410);
    expect(typed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await typed.text()).toBe('{"title":"Gone"}');
  });
});
