import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpStatus,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import type { Request, Response } from 'express';

import { AllowedMethods } from '../http/allowed-methods.js';
import { ERROR_MESSAGE_MAX_LENGTH, type ErrorDto } from './error.dto.js';
import { DomainError } from './domain-error.js';
import { HttpExceptionWithHeaders, toFailureResponse } from './error-status.js';

/** The one way out for every failure, as `{ "error": <status>, "message": <text> }`; a bug's details are logged only. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(HttpErrorFilter.name);

  constructor(private readonly allowedMethods: AllowedMethods) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const failure = toFailureResponse(this.methodNotAllowed(exception, request) ?? exception);

    if (!failure.expected) {
      this.logger.error(
        `Unexpected failure in ${request.method} ${request.path} (request ${request.id ?? '-'})`,
        exception instanceof Error ? exception.stack : String(exception),
      );
    } else if (
      failure.status === Number(HttpStatus.SERVICE_UNAVAILABLE) &&
      !(exception instanceof DomainError && exception.loggedAtSource)
    ) {
      // Not the client's fault, and worth an operator's eye: what was unavailable, and why.
      this.logger.warn(`${request.method} ${request.path} answered 503: ${reasonOf(exception)}`);
    }
    if (response.headersSent) {
      // Part of another answer is on the wire already: end it rather than corrupt it.
      response.destroy();
      return;
    }
    const body: ErrorDto = { error: failure.status, message: cut(failure.message) };
    response.status(failure.status);
    if (failure.headers) {
      response.set(failure.headers);
    }
    response.json(body);
  }

  /** A path that exists, asked with a method it does not answer: 405 and `Allow`, not 404. */
  private methodNotAllowed(exception: unknown, request: Request): HttpExceptionWithHeaders | undefined {
    if (!(exception instanceof NotFoundException) || request.route) {
      return undefined;
    }
    const allowed = this.allowedMethods.for(request.path);
    if (allowed.length === 0) {
      return undefined;
    }
    return new HttpExceptionWithHeaders(
      HttpStatus.METHOD_NOT_ALLOWED,
      `Method ${request.method} is not allowed on ${request.path}; allowed: ${allowed.join(', ')}`,
      { Allow: allowed.join(', ') },
    );
  }
}

/** The message within `ERROR_MESSAGE_MAX_LENGTH` code points, as the document promises; `…` where it was cut. */
function cut(message: string): string {
  if (message.length <= ERROR_MESSAGE_MAX_LENGTH) {
    return message;
  }
  const codePoints = [...message];
  return codePoints.length <= ERROR_MESSAGE_MAX_LENGTH
    ? message
    : `${codePoints.slice(0, ERROR_MESSAGE_MAX_LENGTH - 1).join('')}…`;
}

/** The failure's own words, and those of its cause (a driver error wrapped by TypeORM, say). */
function reasonOf(exception: unknown): string {
  const reasons: string[] = [];
  for (let current: unknown = exception, depth = 0; current && depth < 3; depth++) {
    if (current instanceof Error && current.message && !reasons.includes(current.message)) {
      reasons.push(current.message);
    }
    const wrapped = current as { driverError?: unknown; cause?: unknown };
    current = wrapped.driverError ?? wrapped.cause;
  }
  return reasons.join(': ') || String(exception);
}
