import { BadRequestException, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';

import type { WritePrecondition } from '../database/if-match.js';
import { PreconditionRequiredError } from '../errors/domain-error.js';

/**
 * Conditional requests (RFC 9110, section 13) on records that declare a
 * version column: the version is the record's strong ETag, `"<version>"`.
 * A controller reads the request's conditions with `@Preconditions()`,
 * answers a versioned read with `notModified` (ETag, 304) and passes
 * `writePrecondition(…)` to `updateIfMatch`/`deleteIfMatch`, whose one
 * statement checks it; the document learns of all this from
 * `@ApiConditionalRead()` and `@ApiConditionalWrite()`.
 */

/** The Express setting (`app.set`) that says whether changes need `If-Match`: `REQUIRE_IF_MATCH`. */
export const REQUIRE_IF_MATCH_SETTING = 'require if-match';

/** One entity tag of a condition: its opaque part (without quotes), and whether it is weak (`W/"…"`). */
export interface EntityTag {
  readonly opaque: string;
  readonly weak: boolean;
}

/** A condition's value: `*` (any current representation), or the tags listed. */
export type EntityTagCondition = '*' | readonly EntityTag[];

/** The request's conditions, as `@Preconditions()` hands them over; absent headers are undefined. */
export interface Preconditions {
  readonly ifMatch?: EntityTagCondition;
  readonly ifNoneMatch?: EntityTagCondition;
}

/** The strong ETag of a record at this version. */
export function entityTag(version: number): string {
  return `"${version}"`;
}

/** Methods that change a record, to which `REQUIRE_IF_MATCH` applies. */
const CHANGES = new Set(['PATCH', 'DELETE', 'PUT']);

/** Shared by every request that sends neither header: nothing to parse, nothing made. */
const NO_PRECONDITIONS: Preconditions = Object.freeze({});

/**
 * The request's `If-Match` and `If-None-Match`, parsed; a malformed one
 * answers 400. A change (PATCH, DELETE) without `If-Match` answers 428 when
 * the service requires it (`REQUIRE_IF_MATCH`).
 */
export const Preconditions = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Preconditions =>
    // The request itself, without switchToHttp(), which makes three functions on every call.
    readPreconditions(context.getArgByIndex<Request>(0)),
);

export function readPreconditions(request: Request): Preconditions {
  const ifMatch = request.headers['if-match'];
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifMatch === undefined) {
    if (CHANGES.has(request.method) && request.app.get(REQUIRE_IF_MATCH_SETTING) === true) {
      throw new PreconditionRequiredError();
    }
    if (ifNoneMatch === undefined) {
      return NO_PRECONDITIONS;
    }
  }
  return {
    ifMatch: ifMatch === undefined ? undefined : parseCondition('If-Match', ifMatch),
    ifNoneMatch: ifNoneMatch === undefined ? undefined : parseCondition('If-None-Match', ifNoneMatch),
  };
}

/** `etagc` of RFC 9110: visible ASCII but `"`, and obs-text. */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/** `*`, or a comma-separated list of entity tags (empty elements allowed, as in any HTTP list). */
export function parseCondition(header: string, value: string): EntityTagCondition {
  const trimmed = value.trim();
  if (trimmed === '*') {
    return '*';
  }
  const tags: EntityTag[] = [];
  for (const element of trimmed.split(',')) {
    const item = element.trim();
    if (item === '') {
      continue;
    }
    const match = ENTITY_TAG.exec(item);
    if (!match) {
      throw new BadRequestException(`${header} must be * or a list of entity tags such as "3"`);
    }
    tags.push({ weak: match[1] !== undefined, opaque: match[2] });
  }
  if (tags.length === 0) {
    throw new BadRequestException(`${header} must be * or a list of entity tags such as "3"`);
  }
  return tags;
}

/**
 * Answers a versioned read: sets `ETag`, and when `If-None-Match` names this
 * version (weakly, or `*`), answers the 304 Not Modified the handler returns
 * in place of the record (a web `Response`, which Nest sends as it is, the
 * headers set so far kept):
 *
 * ```ts
 * return notModified(response, preconditions, plant.version) ?? plantView(plant);
 * ```
 */
export function notModified(
  response: Response,
  preconditions: Preconditions,
  version: number,
): globalThis.Response | undefined {
  response.setHeader('ETag', entityTag(version));
  const { ifNoneMatch } = preconditions;
  const opaque = String(version);
  if (ifNoneMatch === '*' || ifNoneMatch?.some((tag) => tag.opaque === opaque)) {
    return new globalThis.Response(null, { status: 304 });
  }
  return undefined;
}

/** The largest version a version column (`integer`) holds. */
const MAX_VERSION = 2 ** 31 - 1;

/**
 * What `updateIfMatch` and `deleteIfMatch` check for `If-Match`: nothing without it or with `*`
 * (any existing record will do: a missing one is 404 either way); else the
 * versions of its strong tags, compared strongly, so a weak tag or one this
 * service never made matches nothing (412).
 */
export function writePrecondition(preconditions: Preconditions): WritePrecondition | undefined {
  const { ifMatch } = preconditions;
  if (ifMatch === undefined || ifMatch === '*') {
    return undefined;
  }
  const versions: number[] = [];
  for (const tag of ifMatch) {
    if (!tag.weak && /^[1-9]\d{0,9}$/.test(tag.opaque) && Number(tag.opaque) <= MAX_VERSION) {
      versions.push(Number(tag.opaque));
    }
  }
  return { versions };
}
