import { applyDecorators, HttpStatus } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

import { ErrorDto } from './error.dto.js';

export interface ErrorDocumentation {
  /** What the status means in this service. */
  readonly description: string;
  /** A message the service really answers with it. */
  readonly example: string;
}

/** A status whose meaning a resource words itself: its 404 and 409, say. */
export interface ResourceErrorDocumentation extends ErrorDocumentation {
  readonly status: HttpStatus;
}

/** Each status this service answers with an `Error`, as the OpenAPI document tells it. */
export const ERROR_DOCUMENTATION: Readonly<Partial<Record<HttpStatus, ErrorDocumentation>>> = {
  [HttpStatus.BAD_REQUEST]: {
    description:
      'Unexpected error: the request is malformed (missing body, invalid JSON) or breaks a rule of its schema',
    example: 'name must be a string of 1 to 255 characters that is not only white space, without U+0000',
  },
  [HttpStatus.UNAUTHORIZED]: {
    description: 'The bearer token is missing, malformed, unknown or expired',
    example: 'The bearer token is invalid or expired',
  },
  [HttpStatus.FORBIDDEN]: {
    description: 'The bearer token is valid but lacks the scope this operation needs',
    example: 'The bearer token lacks the plants:write scope',
  },
  // A resource words its own (see ResourceErrorDocumentation); these are the fallbacks.
  [HttpStatus.NOT_FOUND]: {
    description: 'Nothing is stored under this id',
    example: 'Not found',
  },
  [HttpStatus.CONFLICT]: {
    description: 'The request conflicts with what is stored',
    example: 'The request conflicts with a record already stored',
  },
  [HttpStatus.PAYLOAD_TOO_LARGE]: {
    description: 'The request body is larger than 16 KiB',
    example: 'Request body is larger than 16384 bytes',
  },
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: {
    description: 'The request body is not application/json in UTF-8',
    example: 'Content-Type must be application/json',
  },
  [HttpStatus.TOO_MANY_REQUESTS]: {
    description:
      'Too many requests for the token, or failed authentications from the address; see Retry-After',
    example: 'Too many requests for this token; retry after 12 s',
  },
  [HttpStatus.INTERNAL_SERVER_ERROR]: {
    description: 'An unexpected fault; details are in the log under the request id',
    example: 'Internal server error',
  },
  [HttpStatus.SERVICE_UNAVAILABLE]: {
    description: 'The database is unavailable or the service is shutting down; see Retry-After',
    example: 'The database is unavailable; retry later',
  },
};

/** Failures every protected operation can answer, whatever it does. */
export const COMMON_ERROR_STATUSES = [
  HttpStatus.UNAUTHORIZED,
  HttpStatus.TOO_MANY_REQUESTS,
  HttpStatus.INTERNAL_SERVER_ERROR,
  HttpStatus.SERVICE_UNAVAILABLE,
] as const;

/** Documents one status answered with the `Error` body, and an example of it. */
export function ApiErrorResponse(
  status: HttpStatus,
  documentation: ErrorDocumentation = ERROR_DOCUMENTATION[status] ?? {
    description: 'Error',
    example: 'Error',
  },
): MethodDecorator & ClassDecorator {
  return ApiResponse({
    status,
    description: documentation.description,
    type: ErrorDto,
    example: { error: status, message: documentation.example },
  });
}

/**
 * Documents the `Error` body for the given statuses (a resource's own wording
 * where it gives one) and for those every protected operation can answer.
 */
export function ApiErrorResponses(
  ...statuses: Array<HttpStatus | ResourceErrorDocumentation>
): MethodDecorator {
  const worded = new Map<HttpStatus, ErrorDocumentation | undefined>(
    COMMON_ERROR_STATUSES.map((status) => [status, undefined]),
  );
  for (const entry of statuses) {
    if (typeof entry === 'number') {
      worded.set(entry, worded.get(entry));
    } else {
      worded.set(entry.status, entry);
    }
  }
  return applyDecorators(
    ...[...worded]
      .sort(([a], [b]) => a - b)
      .map(([status, documentation]) => ApiErrorResponse(status, documentation)),
  );
}
