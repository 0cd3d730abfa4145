import { maxHeaderSize } from 'node:http';

import { applyDecorators, HttpStatus, SetMetadata } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';

import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';

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

/** What `@IfNoneMatch()` adds: `ETag` on the 200, and 304 when `If-None-Match` names the current version. */
export function ApiConditionalRead(): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'If-None-Match',
      ...entityTagList(
        'Entity tags (or `*`) the client holds: when one is the current version, the answer is 304 with no body',
      ),
    }),
    ApiResponse({
      status: HttpStatus.NOT_MODIFIED,
      description: 'The record is at a version If-None-Match names: the copy the client holds is current',
      headers: { ETag: ETAG_HEADER },
    }),
    SetMetadata(ETAG_RESPONSE_KEY, true),
  );
}

/** What `@IfMatch()` adds: the header, 412 and 428, and `ETag` on the 200 if there is one. */
export function ApiConditionalWrite(): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'If-Match',
      ...entityTagList(
        'Change the record only if it is at one of these versions (its ETag), or, with `*`, if it exists; ' +
          'else 412 and nothing changes. Required when the service says so (REQUIRE_IF_MATCH): 428 without it',
      ),
    }),
    ApiErrorResponses(HttpStatus.PRECONDITION_FAILED, HttpStatus.PRECONDITION_REQUIRED),
    SetMetadata(ETAG_RESPONSE_KEY, true),
  );
}
