import { HttpStatus } from '@nestjs/common';

import { HttpExceptionWithHeaders } from '../errors/error-status.js';

/** 429 with the seconds to wait in `Retry-After`. */
export function tooManyRequests(message: string, retryAfterSeconds: number): HttpExceptionWithHeaders {
  return new HttpExceptionWithHeaders(
    HttpStatus.TOO_MANY_REQUESTS,
    `${message}; retry after ${retryAfterSeconds} s`,
    {
      'Retry-After': String(retryAfterSeconds),
    },
  );
}
