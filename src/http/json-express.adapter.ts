import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

import { stringifyJson } from './json.js';

/**
 * Express, with a leaner way out for JSON answers: a plain object or list is
 * serialised (ids beyond 2^53 with every digit, see `stringifyJson`) and written in one call, with its Content-Type and
 * Content-Length, instead of going through `res.json()` and `res.send()`
 * (which re-parse the Content-Type, copy the body into a Buffer and check
 * freshness on every answer). Everything else (strings, streams, errors) is
 * answered by Nest's own adapter.
 */
export class JsonExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!isPlainJson(body) || response.getHeader('Content-Type') !== undefined) {
      return super.reply(response, body, statusCode);
    }
    const text = stringifyJson(body);
    if (statusCode !== undefined) {
      response.statusCode = statusCode;
    }
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', Buffer.byteLength(text));
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
