import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

import { stringifyJson } from './json.js';

/**
 * Nest's Express adapter, but a plain object or list a handler returns is serialised by one
 * `JSON.stringify` with no replacer: Express's `json replacer` setting (which writes a `bigint` with
 * every digit, `bigintAsNumber`) makes `JSON.stringify` call it for every value of every answer, where
 * `stringifyJson` uses it only for the rare body that holds a `bigint`. The answer is then sent as
 * `res.json()` sends it (`res.send()`, the same headers); anything else is Nest's own `reply()`.
 */
export class JsonExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!isPlainJson(body) || response.getHeader('Content-Type') !== undefined) {
      return super.reply(response, body, statusCode);
    }
    if (statusCode !== undefined) {
      response.status(statusCode);
    }
    response.setHeader('Content-Type', 'application/json');
    return response.send(stringifyJson(body));
  }
}

/** A list, or an object of no class: what `JSON.stringify` writes as `res.json()` would. */
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
