import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';

import '../http/request-id.js';

import type { ErrorDto } from './error.dto.js';
import { toFailureResponse } from './error-status.js';

/**
 * The one way out for every failure: validation, JSON parsing, the body
 * parser, authentication, the database, or a bug. The client always gets
 * `{ "error": <status>, "message": <text> }`; a bug's details go to the log only.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(HttpErrorFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const failure = toFailureResponse(exception);

    if (!failure.expected) {
      this.logger.error(
        `${request.method} ${request.path} failed (request ${String(request.id ?? '-')})`,
        exception instanceof Error ? exception.stack : String(exception),
      );
    }
    if (response.headersSent) {
      // Part of another answer is on the wire already: end it rather than corrupt it.
      response.destroy();
      return;
    }
    const body: ErrorDto = { error: failure.status, message: failure.message };
    response.status(failure.status);
    if (failure.headers) {
      response.set(failure.headers);
    }
    response.json(body);
  }
}
