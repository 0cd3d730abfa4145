import { applyDecorators, HttpStatus } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

import { ErrorDto } from './error.dto.js';

/** What each status means in this service, as the OpenAPI document says it. */
export const ERROR_DESCRIPTIONS: Readonly<Partial<Record<HttpStatus, string>>> = {
  [HttpStatus.BAD_REQUEST]:
    'Unexpected error: the request is malformed (missing body, invalid JSON) or breaks a rule of its schema',
  [HttpStatus.UNAUTHORIZED]: 'The bearer token is missing, malformed, unknown or expired',
  [HttpStatus.FORBIDDEN]: 'The bearer token is valid but lacks the scope this operation needs',
  [HttpStatus.NOT_FOUND]: 'No such resource',
  [HttpStatus.CONFLICT]: 'The id is taken by a plant with a different name or tag',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'The request body is larger than 16 KiB',
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: 'The request body is not application/json in UTF-8',
  [HttpStatus.TOO_MANY_REQUESTS]: 'Too many requests or failed authentication attempts; see Retry-After',
  [HttpStatus.INTERNAL_SERVER_ERROR]: 'An unexpected fault; details are in the log under the request id',
  [HttpStatus.SERVICE_UNAVAILABLE]:
    'The database is unavailable or the service is shutting down; see Retry-After',
};

/** Failures every protected operation can answer, whatever it does. */
export const COMMON_ERROR_STATUSES = [
  HttpStatus.UNAUTHORIZED,
  HttpStatus.TOO_MANY_REQUESTS,
  HttpStatus.INTERNAL_SERVER_ERROR,
  HttpStatus.SERVICE_UNAVAILABLE,
] as const;

/**
 * Documents the `Error` body for the given statuses and for those every
 * protected operation can answer.
 */
export function ApiErrorResponses(...statuses: HttpStatus[]): MethodDecorator {
  const all = [...new Set([...statuses, ...COMMON_ERROR_STATUSES])].sort((a, b) => a - b);
  return applyDecorators(
    ...all.map((status) =>
      ApiResponse({ status, description: ERROR_DESCRIPTIONS[status] ?? 'Error', type: ErrorDto }),
    ),
  );
}
