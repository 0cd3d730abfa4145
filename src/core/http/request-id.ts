import { randomUUID } from 'node:crypto';

import type { Request } from 'express';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request's id, as logged and echoed in `X-Request-Id`. */
    id?: string;
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A caller's id is kept when it is short and plain; anything else is replaced. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes the caller's `X-Request-Id` when acceptable. */
export function assignRequestId(request: Request): string {
  const offered = request.headers['x-request-id'];
  const id = typeof offered === 'string' && ACCEPTABLE_REQUEST_ID.test(offered) ? offered : randomUUID();
  request.id = id;
  return id;
}
