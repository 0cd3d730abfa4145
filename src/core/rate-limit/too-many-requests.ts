import { HttpStatus } from '@nestjs/common';

import { HttpExceptionWithHeaders } from '../errors/error-status.js';
import type { RateLimitFields } from './rate-limit-fields.js';

/** 429 with the seconds to wait in `Retry-After`, and the budget that was spent. */
export function tooManyRequests(
  message: string,
  retryAfterSeconds: number,
  fields?: RateLimitFields,
): HttpExceptionWithHeaders {
  return new HttpExceptionWithHeaders(
    HttpStatus.TOO_MANY_REQUESTS,
    `${message}; retry after ${retryAfterSeconds} s`,
    { ...fields, 'Retry-After': String(retryAfterSeconds) },
  );
}
