import { applyDecorators, HttpStatus, SetMetadata } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';

import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { maxHeaderSize } from '../http/max-header-size.js';

/** Marks an operation whose 200 carries the record's `ETag`: the document builder adds the header. */
export const ETAG_RESPONSE_KEY = 'plant-store:etag-response';

/** The `ETag` response header, as the document describes it: a version column's integer, quoted. */
export const ETAG_HEADER = {
  description:
    'The record\'s version as a strong entity tag (`"3"`): send it in If-None-Match to read it again ' +
    'only if it changed, or in If-Match to change it only if it did not',
  required: true,
  schema: { type: 'string', minLength: 3, maxLength: 12, pattern: '^"[1-9][0-9]{0,9}"$', examples: ['"3"'] },
} as const;

/** `Last-Modified`: the time of the record's last change, to the second, where it keeps one (`@UpdateDateColumn()`). */
export const LAST_MODIFIED_HEADER = {
  description:
    "The time of the record's last change, to the second, as an HTTP-date: send it in If-Modified-Since to " +
    'read the record again only if it changed since, or in If-Unmodified-Since to change it only if it did not',
  required: false,
  schema: {
    type: 'string',
    maxLength: 29,
    pattern: '^[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$',
    examples: ['Sat, 28 Nov 2026 10:20:30 GMT'],
  },
} as const;

/** An HTTP-date in a request header: an IMF-fixdate, or one of the two obsolete forms; anything else is ignored. */
function httpDate(description: string) {
  return {
    required: false,
    description: `${description}. A value that is not an HTTP-date is ignored, as RFC 9110 asks`,
    schema: { type: 'string', minLength: 1, maxLength: 64, examples: ['Sat, 28 Nov 2026 10:20:30 GMT'] },
  } as const;
}

/**
 * A list of entity tags in a request header. The service sets no length of
 * its own: Node.js refuses a request whose head is longer than its
 * `maxHeaderSize` (431), so no value reaches the service longer than that.
 */
function entityTagList(description: string) {
  return {
    required: false,
    description: `${description}. The whole request head is at most ${maxHeaderSize} bytes (else 431)`,
    schema: { type: 'string', minLength: 1, maxLength: maxHeaderSize, examples: ['"3"'] },
  } as const;
}

/**
 * What `@IfNoneMatch()` adds: `ETag` and `Last-Modified` on the 200, and 304 when `If-None-Match` names
 * the current version or, without it, nothing changed since `If-Modified-Since`.
 */
export function ApiConditionalRead(): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'If-None-Match',
      ...entityTagList(
        'Entity tags (or `*`) the client holds: when one is the current version, the answer is 304 with no body',
      ),
    }),
    ApiHeader({
      name: 'If-Modified-Since',
      ...httpDate(
        'Without If-None-Match: when the record has not changed since this time (its Last-Modified), the ' +
          'answer is 304 with no body',
      ),
    }),
    ApiResponse({
      status: HttpStatus.NOT_MODIFIED,
      description:
        'The record is at a version If-None-Match names, or unchanged since If-Modified-Since: the copy the ' +
        'client holds is current',
      headers: { ETag: ETAG_HEADER, 'Last-Modified': LAST_MODIFIED_HEADER },
    }),
    SetMetadata(ETAG_RESPONSE_KEY, true),
  );
}

/** What `@IfMatch()` adds: the headers, 412 and 428, and `ETag` and `Last-Modified` on the 200 if there is one. */
export function ApiConditionalWrite(): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'If-Match',
      ...entityTagList(
        'Change the record only if it is at one of these versions (its ETag), or, with `*`, if it exists; ' +
          'else 412 and nothing changes. Required when the service says so (REQUIRE_IF_MATCH): 428 without it',
      ),
    }),
    ApiHeader({
      name: 'If-Unmodified-Since',
      ...httpDate(
        'Without If-Match: change the record only if it has not changed since this time (its Last-Modified); ' +
          'else 412 and nothing changes',
      ),
    }),
    ApiErrorResponses(HttpStatus.PRECONDITION_FAILED, HttpStatus.PRECONDITION_REQUIRED),
    SetMetadata(ETAG_RESPONSE_KEY, true),
  );
}
