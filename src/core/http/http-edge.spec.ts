import { EventEmitter } from 'node:events';

import { jest } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import type { Request, Response } from 'express';
import { pino } from 'pino';

import type { LoadShedder } from '../lifecycle/load-shedder.js';
import { ShutdownState } from '../lifecycle/shutdown-state.js';
import { httpEdge } from './http-edge.js';

/** A request to `path`, and a response that records the headers set on it. */
function exchange(path: string): { request: Request; response: Response; headers: Map<string, unknown> } {
  const headers = new Map<string, unknown>();
  const response = Object.assign(new EventEmitter(), {
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
    writableFinished: true,
    statusCode: 200,
  });
  const request = { method: 'GET', path, url: path, headers: {}, baseUrl: '' };
  return { request: request as unknown as Request, response: response as unknown as Response, headers };
}

function edge(tracing: boolean) {
  return httpEdge({
    logger: pino({ level: 'silent' }),
    shutdown: new ShutdownState(),
    shedder: { shouldShed: () => false } as unknown as LoadShedder,
    tracing,
  });
}

describe('httpEdge', () => {
  afterEach(() => jest.restoreAllMocks());

  it('does no tracing work for a request while tracing is off', () => {
    const activeSpan = jest.spyOn(trace, 'getActiveSpan');
    const { request, response, headers } = exchange('/plants');
    const next = jest.fn();

    edge(false)(request, response, next);
    response.emit('close');

    expect(next).toHaveBeenCalledWith();
    expect(activeSpan).not.toHaveBeenCalled();
    expect(headers.get('x-request-id')).toStrictEqual(expect.any(String));
  });

  it('names the server span after the route while tracing is on', () => {
    const activeSpan = jest.spyOn(trace, 'getActiveSpan');
    const { request, response } = exchange('/plants');

    edge(true)(request, response, () => undefined);

    expect(activeSpan).toHaveBeenCalledTimes(1);
  });

  it('sets the security headers, and has nothing to remove', () => {
    const { request, response, headers } = exchange('/plants');
    const removeHeader = jest.spyOn(response, 'removeHeader');

    edge(false)(request, response, () => undefined);

    expect(headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(removeHeader).not.toHaveBeenCalled();
  });
});
