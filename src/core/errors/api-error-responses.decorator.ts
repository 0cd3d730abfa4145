import { applyDecorators, HttpStatus } from '@nestjs/common';
import { ApiResponse, getSchemaPath, type ResponseObject } from '@nestjs/swagger';

import { ErrorDto } from './error.dto.js';

export interface ErrorDocumentation {
  readonly description: string;
  /** A message the service really answers with it. */
  readonly example: string;
}

/** A status whose meaning a resource words itself: its 404 and 409, say. */
export interface ResourceErrorDocumentation extends ErrorDocumentation {
  readonly status: HttpStatus;
}

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
  [HttpStatus.UNPROCESSABLE_ENTITY]: {
    description: 'The request refers to a record that does not exist',
    example: 'The request refers to a record that does not exist',
  },
  [HttpStatus.PRECONDITION_FAILED]: {
    description:
      'If-Match names no version the record is at: it changed since it was read. Nothing was changed',
    example: 'The record has changed since the version If-Match names; read it again for its current ETag',
  },
  [HttpStatus.PAYLOAD_TOO_LARGE]: {
    description: 'The request body is larger than 16 KiB',
    example: 'Request body is larger than 16384 bytes',
  },
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: {
    description:
      'The request body is not application/json in UTF-8 (or, for PATCH, application/merge-patch+json)',
    example: 'Content-Type must be application/json',
  },
  [HttpStatus.PRECONDITION_REQUIRED]: {
    description: 'The service requires If-Match on changes (REQUIRE_IF_MATCH), and none was sent',
    example: 'This change needs an If-Match header: send the ETag of the version it applies to, or *',
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
    description:
      'The database is unavailable, or the service is overloaded or shutting down; see Retry-After',
    example: 'The database is unavailable; retry later',
  },
};

/** The guards' and the exception filter's: every operation not `@Public()` may answer them. */
export const GUARDED_ERROR_STATUSES = [
  HttpStatus.UNAUTHORIZED,
  HttpStatus.TOO_MANY_REQUESTS,
  HttpStatus.INTERNAL_SERVER_ERROR,
  HttpStatus.SERVICE_UNAVAILABLE,
] as const;

/** Worded as `ERROR_DOCUMENTATION` says unless `worded` says otherwise. */
export function errorResponseObject(
  status: HttpStatus,
  worded: Partial<ErrorDocumentation> = {},
): ResponseObject {
  const documentation = { ...documentationOf(status), ...worded };
  return {
    description: documentation.description,
    content: {
      'application/json': {
        schema: { $ref: getSchemaPath(ErrorDto) },
        example: { error: status, message: documentation.example },
      },
    },
  };
}

/** Documents one status answered with the `Error` body, and an example of it. */
export function ApiErrorResponse(
  status: HttpStatus,
  documentation: ErrorDocumentation = documentationOf(status),
): MethodDecorator & ClassDecorator {
  return ApiResponse({
    status,
    description: documentation.description,
    type: ErrorDto,
    example: { error: status, message: documentation.example },
  });
}

/**
 * Documents the statuses an operation answers on its own account, the platform's being added for
 * it. Two wordings of one status are both kept: one description naming both, an example each.
 */
export function ApiErrorResponses(
  ...statuses: Array<HttpStatus | ResourceErrorDocumentation>
): MethodDecorator {
  const worded = new Map<HttpStatus, ErrorDocumentation[]>();
  for (const entry of statuses) {
    const status = typeof entry === 'number' ? entry : entry.status;
    const wordings = worded.get(status) ?? [];
    if (typeof entry !== 'number') {
      wordings.push(entry);
    }
    worded.set(status, wordings);
  }
  return applyDecorators(
    ...[...worded].sort(([a], [b]) => a - b).map(([status, wordings]) => documented(status, wordings)),
  );
}

function documented(status: HttpStatus, wordings: readonly ErrorDocumentation[]): MethodDecorator {
  if (wordings.length <= 1) {
    return ApiErrorResponse(status, wordings[0]);
  }
  return ApiResponse({
    status,
    description: wordings.map(({ description }) => description).join('; or '),
    type: ErrorDto,
    examples: Object.fromEntries(
      wordings.map(({ description, example }, index) => [
        `case${index + 1}`,
        { summary: description, value: { error: status, message: example } },
      ]),
    ),
  });
}

function documentationOf(status: HttpStatus): ErrorDocumentation {
  return ERROR_DOCUMENTATION[status] ?? { description: 'Error', example: 'Error' };
}
