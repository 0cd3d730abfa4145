import { HttpStatus } from '@nestjs/common';
import type { HeaderObject, OpenAPIObject, OperationObject, ReferenceObject } from '@nestjs/swagger';

import { AUTH_FAILURES_POLICY } from '../auth/auth-failure.limiter.js';
import { BearerChallenge } from '../auth/bearer-challenge.js';
import type { Scope } from '../auth/scopes.js';
import { RETRY_AFTER_SECONDS } from '../errors/error-status.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';
import { RATE_LIMIT_FIELD, RATE_LIMIT_POLICY_FIELD } from '../rate-limit/rate-limit-fields.js';
import { secondsFrom } from '../rate-limit/rate-limit.storage.js';
import { TOKEN_THROTTLER } from '../rate-limit/token-throttler.guard.js';

export interface OperationAccess {
  readonly guarded: boolean;
  readonly scopes: readonly Scope[];
}

const POLICIES = [TOKEN_THROTTLER, AUTH_FAILURES_POLICY];
/** Limits and windows are integers the configuration bounds by the largest safe one; seconds round up. */
const MAX_COUNT_DIGITS = String(Number.MAX_SAFE_INTEGER).length;
const MAX_SECONDS = secondsFrom(Number.MAX_SAFE_INTEGER);
const MAX_SECONDS_DIGITS = String(MAX_SECONDS).length;

function rateLimitSchema(count: string, seconds: string, example: string): HeaderObject['schema'] {
  const longestName = Math.max(...POLICIES.map((policy) => policy.length));
  return {
    type: 'string',
    minLength: `"";${count}=0;${seconds}=0`.length + Math.min(...POLICIES.map((policy) => policy.length)),
    maxLength: `"";${count}=;${seconds}=`.length + longestName + MAX_COUNT_DIGITS + MAX_SECONDS_DIGITS,
    pattern: `^"(${POLICIES.join('|')})";${count}=[0-9]{1,${MAX_COUNT_DIGITS}};${seconds}=[0-9]{1,${MAX_SECONDS_DIGITS}}$`,
    examples: [example],
  };
}

const COUNTED_ON =
  'Sent with every answer counted against a limit: policy `token` once the request is authenticated ' +
  'and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and ' +
  '429 once the address is locked out). Not sent while that limit is off';

/** Declared once, in `components.headers`, and referred to from each response that carries them. */
export const PLATFORM_HEADERS: Readonly<Record<string, HeaderObject>> = {
  RequestId: {
    description:
      "The request's id, in every answer and in every log line about the request: the client's " +
      `${REQUEST_ID_HEADER} when it is 1 to 128 of \`A-Z a-z 0-9 . _ : -\`, else a new UUID`,
    required: true,
    schema: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9._:-]{1,128}$',
      examples: ['6f1d3c52-8a4e-4d7b-9a61-2f0c5b7e9d10'],
    },
  },
  RateLimitPolicy: {
    description:
      'The limit this answer was counted against (draft-ietf-httpapi-ratelimit-headers-10): `q` requests ' +
      `per window of \`w\` seconds. ${COUNTED_ON}`,
    required: false,
    schema: rateLimitSchema('q', 'w', '"token";q=100000;w=60'),
  },
  RateLimit: {
    description:
      'What is left of that limit (draft-ietf-httpapi-ratelimit-headers-10): `r` more requests, and the ' +
      `budget is whole again in \`t\` seconds. ${COUNTED_ON}`,
    required: false,
    schema: rateLimitSchema('r', 't', '"token";r=99958;t=17'),
  },
  NotCounted: {
    description:
      'Never sent with this answer: it is not counted against any rate limit (a public route, or a request ' +
      'refused before it is counted)',
    required: false,
    schema: { not: {} },
  },
};

function ref(name: keyof typeof PLATFORM_HEADERS): ReferenceObject {
  return { $ref: `#/components/headers/${name}` };
}

/** The challenges a status carries, in the order the guard tries them. */
function wwwAuthenticate(values: string[], required: boolean, description: string): HeaderObject {
  return {
    description,
    required,
    schema: { type: 'string', enum: values },
  };
}

/** Refusals that come before any count: the body's size, the scope. */
const NEVER_COUNTED: ReadonlySet<number> = new Set([HttpStatus.FORBIDDEN, HttpStatus.PAYLOAD_TOO_LARGE]);

function platformHeadersOf(
  status: number,
  access: OperationAccess,
): Record<string, HeaderObject | ReferenceObject> {
  const headers: Record<string, HeaderObject | ReferenceObject> = { [REQUEST_ID_HEADER]: ref('RequestId') };
  if (!access.guarded || NEVER_COUNTED.has(status)) {
    headers[RATE_LIMIT_POLICY_FIELD] = ref('NotCounted');
    headers[RATE_LIMIT_FIELD] = ref('NotCounted');
  } else if (status === Number(HttpStatus.TOO_MANY_REQUESTS)) {
    // Each limit's 429 says which budget is spent.
    headers[RATE_LIMIT_POLICY_FIELD] = { ...PLATFORM_HEADERS.RateLimitPolicy, required: true };
    headers[RATE_LIMIT_FIELD] = { ...PLATFORM_HEADERS.RateLimit, required: true };
  } else {
    headers[RATE_LIMIT_POLICY_FIELD] = ref('RateLimitPolicy');
    headers[RATE_LIMIT_FIELD] = ref('RateLimit');
  }
  if (status === Number(HttpStatus.TOO_MANY_REQUESTS)) {
    headers['Retry-After'] = {
      description: 'Seconds until the spent budget allows a request again',
      required: true,
      schema: { type: 'integer', format: 'int64', minimum: 1, maximum: MAX_SECONDS, examples: [12] },
    };
  }
  if (status === Number(HttpStatus.SERVICE_UNAVAILABLE)) {
    headers['Retry-After'] = {
      description: 'Seconds to wait before trying again',
      required: true,
      schema: {
        type: 'integer',
        format: 'int32',
        minimum: RETRY_AFTER_SECONDS,
        maximum: RETRY_AFTER_SECONDS,
        examples: [RETRY_AFTER_SECONDS],
      },
    };
  }
  if (access.guarded) {
    Object.assign(headers, challengesOf(status, access.scopes));
  }
  return headers;
}

/** RFC 6750's challenges: on every 401 and 403, and on the 400 of a request with several Authorization headers. */
function challengesOf(status: number, scopes: readonly Scope[]): Record<string, HeaderObject> {
  const challenge = (exception: BearerChallenge) => exception.headers['WWW-Authenticate'];
  switch (status) {
    case Number(HttpStatus.UNAUTHORIZED):
      return {
        'WWW-Authenticate': wwwAuthenticate(
          [challenge(BearerChallenge.missingToken()), challenge(BearerChallenge.invalidToken())],
          true,
          'The bearer challenge (RFC 6750): `error="invalid_token"` when a bearer token was sent',
        ),
      };
    case Number(HttpStatus.FORBIDDEN):
      return {
        'WWW-Authenticate': wwwAuthenticate(
          scopes.map((scope) => challenge(BearerChallenge.insufficientScope(scope))),
          true,
          'The bearer challenge (RFC 6750), naming the scope the token lacks',
        ),
      };
    case Number(HttpStatus.BAD_REQUEST):
      return {
        'WWW-Authenticate': wwwAuthenticate(
          [challenge(BearerChallenge.repeatedAuthorization())],
          false,
          'Sent when the request has more than one Authorization header (RFC 6750 `invalid_request`)',
        ),
      };
    default:
      return {};
  }
}

/** The headers the platform sends whatever the route does, after the operation's own (an `ETag`). */
export function documentPlatformHeaders(
  document: OpenAPIObject,
  accessOf: (path: string, method: string) => OperationAccess,
): void {
  document.components = { ...document.components, headers: { ...PLATFORM_HEADERS } };
  for (const [path, pathItem] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(pathItem as Record<string, unknown>)) {
      const responses = (operation as OperationObject | undefined)?.responses;
      if (typeof operation !== 'object' || operation === null || !responses) {
        continue;
      }
      const access = accessOf(path, method);
      for (const [status, response] of Object.entries(responses)) {
        if (!response || '$ref' in response) {
          continue;
        }
        response.headers = { ...response.headers, ...platformHeadersOf(Number(status), access) };
      }
    }
  }
}
