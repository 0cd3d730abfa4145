import { HttpException, HttpStatus } from '@nestjs/common';

import {
  databaseRefusal,
  isDatabaseUnavailableError,
  type RefusalKind,
} from '../database/database-errors.js';
import { DomainError, type DomainErrorKind } from './domain-error.js';

/** How a failure is answered: the one table from failures to HTTP. */
export interface FailureResponse {
  readonly status: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Expected failures are the client's or the environment's; only the others are bugs worth a stack trace. */
  readonly expected: boolean;
}

export const INTERNAL_ERROR_MESSAGE = 'Internal server error';
export const RETRY_AFTER_SECONDS = 1;
export const CONFLICT_MESSAGE = 'The request conflicts with a record already stored';

/** For a refusal that the resource did not word as a `DomainError` of its own (see `databaseRefusal`). */
const REFUSALS: Readonly<Record<RefusalKind, { status: HttpStatus; message: string }>> = {
  unique: { status: HttpStatus.CONFLICT, message: CONFLICT_MESSAGE },
  'still-referenced': {
    status: HttpStatus.CONFLICT,
    message: 'The record is still referred to by others, which must change or go first',
  },
  'missing-reference': {
    status: HttpStatus.UNPROCESSABLE_ENTITY,
    message: 'The request refers to a record that does not exist',
  },
  'invalid-value': { status: HttpStatus.BAD_REQUEST, message: 'A value breaks a rule of the stored record' },
};

const STATUS_BY_DOMAIN_KIND: Readonly<Record<DomainErrorKind, HttpStatus>> = {
  conflict: HttpStatus.CONFLICT,
  'not-found': HttpStatus.NOT_FOUND,
  unprocessable: HttpStatus.UNPROCESSABLE_ENTITY,
  'precondition-failed': HttpStatus.PRECONDITION_FAILED,
  'precondition-required': HttpStatus.PRECONDITION_REQUIRED,
  unavailable: HttpStatus.SERVICE_UNAVAILABLE,
};

const RETRY_LATER = { 'Retry-After': String(RETRY_AFTER_SECONDS) } as const;

/** An HTTP failure that carries headers of its own, such as `WWW-Authenticate`. */
export class HttpExceptionWithHeaders extends HttpException {
  constructor(
    status: HttpStatus,
    message: string,
    readonly headers: Readonly<Record<string, string>>,
  ) {
    super(message, status);
  }
}

export function toFailureResponse(exception: unknown): FailureResponse {
  if (exception instanceof DomainError) {
    const status = STATUS_BY_DOMAIN_KIND[exception.kind];
    return {
      status,
      message: exception.message,
      headers: status === HttpStatus.SERVICE_UNAVAILABLE ? RETRY_LATER : undefined,
      expected: true,
    };
  }
  if (exception instanceof HttpException) {
    return fromHttpException(exception);
  }
  const refusal = databaseRefusal(exception);
  if (refusal) {
    return { ...REFUSALS[refusal.kind], expected: true };
  }
  if (isDatabaseUnavailableError(exception)) {
    return {
      status: HttpStatus.SERVICE_UNAVAILABLE,
      message: 'The database is unavailable; retry later',
      headers: RETRY_LATER,
      expected: true,
    };
  }
  return { status: HttpStatus.INTERNAL_SERVER_ERROR, message: INTERNAL_ERROR_MESSAGE, expected: false };
}

function fromHttpException(exception: HttpException): FailureResponse {
  const status: number = exception.getStatus();
  const headers = exception instanceof HttpExceptionWithHeaders ? exception.headers : undefined;
  if (status === Number(HttpStatus.SERVICE_UNAVAILABLE)) {
    return {
      status,
      // The service's own 503s say why; others (a health check's report) get the status's meaning.
      message: explicitMessageOf(exception) ?? 'The service is unavailable; retry later',
      headers: { ...RETRY_LATER, ...headers },
      expected: true,
    };
  }
  if (status >= 500) {
    // A 5xx message may carry internals: the client gets the status's meaning only.
    return { status, message: INTERNAL_ERROR_MESSAGE, headers, expected: false };
  }
  return { status, message: messageOf(exception), headers, expected: true };
}

function explicitMessageOf(exception: HttpException): string | undefined {
  const response = exception.getResponse();
  const message = typeof response === 'string' ? response : (response as { message?: unknown }).message;
  return typeof message === 'string' ? message : undefined;
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') {
    return response;
  }
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) {
    return message.map(String).join('; ');
  }
  return typeof message === 'string' ? message : exception.message;
}
