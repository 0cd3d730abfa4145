import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { StreamableFile } from '@nestjs/common';
import type { Express, Request, Response } from 'express';

import { setDefaultHeaders } from './default-headers.js';
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

  describe('default headers (setDefaultHeaders)', () => {
    const DEFAULTS = [
      'X-Request-Id',
      'r-1',
      'X-Frame-Options',
      'SAMEORIGIN',
      'X-Content-Type-Options',
      'nosniff',
    ];

    beforeEach(() => {
      // As the service has it: no header is set before the handler's, and a head can carry them all at once.
      app.disable('x-powered-by');
    });

    /** A route that gives its response the defaults, then answers as `answer` does. */
    function route(path: string, answer: (response: Response) => void): void {
      app.get(path, (_request: Request, response: Response) => {
        setDefaultHeaders(response, [...DEFAULTS]);
        answer(response);
      });
    }

    it('writes them with the head, whichever way it is written', async () => {
      route('/json', (response) => adapter.reply(response, { name: 'Fern' }, 200));
      route('/implicit', (response) => response.end('plain'));
      route('/express', (response) => response.status(201).json({ name: 'Fern' }));
      route('/reason', (response) => response.writeHead(202, 'Taken', ['X-Extra', 'yes']).end());

      for (const path of ['/json', '/implicit', '/express', '/reason']) {
        const response = await fetch(`${base}${path}`);
        expect(response.headers.get('x-request-id')).toBe('r-1');
        expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      }
      const json = await fetch(`${base}/json`);
      expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await json.text()).toBe('{"name":"Fern"}');
      const reason = await fetch(`${base}/reason`);
      expect(reason.status).toBe(202);
      expect(reason.statusText).toBe('Taken');
      expect(reason.headers.get('x-extra')).toBe('yes');
    });

    it("lets the handler's own value win, however it sets it, and sends each header once", async () => {
      route('/set', (response) => {
        response.setHeader('x-frame-options', 'DENY');
        adapter.reply(response, { name: 'Fern' }, 200);
      });
      route('/object', (response) => response.writeHead(200, { 'X-Frame-Options': 'DENY' }).end());
      route('/list', (response) => response.writeHead(200, ['x-frame-options', 'DENY']).end());

      for (const path of ['/set', '/object', '/list']) {
        const response = await fetch(`${base}${path}`);
        // Two values would read "DENY, SAMEORIGIN".
        expect(response.headers.get('x-frame-options')).toBe('DENY');
        expect(response.headers.get('x-request-id')).toBe('r-1');
      }
    });

    it('sets them at once on a response that does not keep them for its head', () => {
      const set: string[] = [];
      const plain = { setHeader: (name: string, value: string) => set.push(name, value) };

      setDefaultHeaders(plain as unknown as Response, DEFAULTS);

      expect(set).toEqual(DEFAULTS);
    });
  });
});
