import {
  createServer as createHttpServer,
  IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  type Server,
  ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';

import { type HeaderList, headersWithDefaults } from './default-headers.js';
import { bigintAsNumber, stringifyJson } from './json.js';
import { PortListeners } from './port-listeners.js';

/**
 * Express, with two costs of every request taken away.
 *
 * Requests and responses are born Express ones. Express gives each request
 * and response it handles its app's prototypes (`Object.setPrototypeOf`),
 * and V8 pays for that on every request: in the call, in code that then
 * meets objects of many shapes, and in the garbage collector, as the
 * request's objects outlive the young generation. Node's server builds requests and
 * responses with the classes it is given; these classes' prototypes are
 * the app's prototypes, so Express's `setPrototypeOf` finds them in place
 * and changes nothing.
 *
 * Its responses carry the headers every answer has (the request's id, the
 * security headers: `setDefaultHeaders`) into their head, and write them
 * there, with whatever else the head has, at once.
 *
 * JSON answers are written once: a plain object or list is serialised (ids
 * beyond 2^53 with every digit, see `stringifyJson`) and written in one call,
 * its Content-Type and Content-Length given to `writeHead()`, instead of going through
 * `res.json()` and `res.send()` (which re-parse the Content-Type, copy the
 * body into a Buffer and check freshness on every answer). Everything else
 * (strings, streams, class instances, an answer whose Content-Type is set
 * already) is answered by Nest's own adapter, through `res.json()` for
 * objects, which writes a `bigint` with every digit too. A handler that has
 * made its answer a 304 Not Modified (see `answerVersioned`) returns its
 * body as usual; it is left out.
 *
 * It listens on `listeners` sockets of its port (see `PortListeners`), and
 * `close()` closes them all.
 */
export class LeanExpressAdapter extends ExpressAdapter {
  private listeners = 1;
  private portListeners?: PortListeners;

  /** Sockets to listen on, set before `listen()`: 1, or more where the platform has SO_REUSEPORT. */
  listenOn(sockets: number): this {
    this.listeners = sockets;
    return this;
  }

  /** As Node's `server.listen(port, host?, callback?)`, which Nest's `app.listen()` calls. */
  override listen(port: string | number, callback?: () => void): Server;
  override listen(port: string | number, hostname: string, callback?: () => void): Server;
  override listen(port: string | number, ...args: [string?, (() => void)?] | [(() => void)?]): Server {
    const callback = typeof args.at(-1) === 'function' ? (args.pop() as (error?: Error) => void) : undefined;
    const host = args[0] as string | undefined;
    if (!/^\d+$/.test(String(port))) {
      // A pipe's path: Node's own listen.
      return host === undefined ? super.listen(port, callback) : super.listen(port, host, callback);
    }
    this.portListeners = new PortListeners(this.getHttpServer(), this.listeners);
    this.portListeners.listen(Number(port), host, (error) => callback?.(error));
    return this.getHttpServer();
  }

  override async close(): Promise<void> {
    await Promise.all([super.close(), this.portListeners?.close()]);
  }

  override initHttpServer(options: NestApplicationOptions): void {
    super.initHttpServer(options);
    // Without it, a class instance holding an id beyond 2^53 (an answer DTO) would fail as a 500.
    this.getInstance<Express>().set('json replacer', bigintAsNumber);
    // Nest's connection tracking listens on the server it made: keep that one then.
    if (options.forceCloseConnections) {
      return;
    }
    const app = this.getInstance<Express>();
    const ExpressRequest = class extends IncomingMessage {};
    const ExpressResponse = class extends ServerResponse {
      defaultHeaders: HeaderList | undefined = undefined;

      override writeHead(
        statusCode: number,
        reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
        headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
      ): this {
        if (typeof reasonOrHeaders === 'string') {
          return super.writeHead(statusCode, reasonOrHeaders, headersWithDefaults(this, headers));
        }
        return super.writeHead(statusCode, headersWithDefaults(this, reasonOrHeaders));
      }
    };
    // ExpressRequest.prototype → the app's request prototype → Express's → IncomingMessage's.
    Object.setPrototypeOf(ExpressRequest.prototype, app.request);
    Object.setPrototypeOf(ExpressResponse.prototype, app.response);
    app.request = ExpressRequest.prototype as Express['request'];
    app.response = ExpressResponse.prototype as unknown as Express['response'];
    // Node's typings want a response class generic in its request, as its own is.
    const classes = {
      IncomingMessage: ExpressRequest,
      ServerResponse: ExpressResponse as typeof ServerResponse,
    };
    this.setHttpServer(
      options.httpsOptions
        ? createHttpsServer({ ...options.httpsOptions, ...classes }, app)
        : createHttpServer(classes, app),
    );
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (response.statusCode === 304) {
      // A conditional read that matched (`answerVersioned`): no body, and the status stays.
      response.end();
      return response;
    }
    if (!isPlainJson(body) || response.getHeader('Content-Type') !== undefined) {
      return super.reply(response, body, statusCode);
    }
    const text = stringifyJson(body);
    response.writeHead(statusCode ?? response.statusCode, [
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Length',
      String(Buffer.byteLength(text)),
    ]);
    response.end(text);
    return response;
  }
}

function isPlainJson(body: unknown): body is object {
  if (Array.isArray(body)) {
    return true;
  }
  if (body === null || typeof body !== 'object') {
    return false;
  }
  const prototype: unknown = Object.getPrototypeOf(body);
  return prototype === Object.prototype || prototype === null;
}
