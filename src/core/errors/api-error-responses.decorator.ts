import { applyDecorators, HttpStatus } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

import { ErrorDto } from './error.dto.js';

interface ErrorDocumentation {
  /** What the status means in this service. */
  readonly description: string;
  /** A message the service really answers with it. */
  readonly example: string;
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
  [HttpStatus.NOT_FOUND]: {
    description: 'No plant has this id',
    example: 'No plant has the id 42',
  },
  [HttpStatus.CONFLICT]: {
    description: 'The id is taken by a plant with a different name or tag',
    example: 'Plant id 42 is already taken by a plant with a different name or tag',
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
export function ApiErrorResponse(status: HttpStatus): MethodDecorator & ClassDecorator {
  const documentation = ERROR_DOCUMENTATION[status] ?? { description: 'Error', example: 'Error' };
  return ApiResponse({
    status,
    description: documentation.description,
    type: ErrorDto,
    example: { error: status, message: documentation.example },
  });
}

/**
 * Documents the `Error` body for the given statuses and for those every
 * protected operation can answer.
 */
export function ApiErrorResponses(...statuses: HttpStatus[]): MethodDecorator {
  const all = [...new Set([...statuses, ...COMMON_ERROR_STATUSES])].sort((a, b) => a - b);
  return applyDecorators(...all.map(ApiErrorResponse));
}
