import { BadRequestException, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';

import type { IfMatch as IfMatchVersions } from '../database/if-match.js';
import { PreconditionRequiredError } from '../errors/domain-error.js';
import { ApiConditionalRead, ApiConditionalWrite } from '../openapi/conditional.decorator.js';

/**
 * Conditional requests (RFC 9110, section 13) on records with a `@VersionColumn()`: the version is
 * the record's strong ETag, `"<version>"`. A handler takes `@IfMatch()` to pass to `updateIfMatch`
 * or `deleteIfMatch`, and `@IfNoneMatch()` to pass to `setETag`; each documents its header and
 * answers in the OpenAPI document.
 */

/** The Express setting (`app.set`) that says whether changes need `If-Match`: `REQUIRE_IF_MATCH`. */
export const REQUIRE_IF_MATCH_SETTING = 'require if-match';

/** One entity tag of a condition: its opaque part (without quotes), and whether it is weak (`W/"…"`). */
export interface EntityTag {
  readonly opaque: string;
  readonly weak: boolean;
}

/** `If-None-Match`: `*` (any current representation), or the tags listed. */
export type IfNoneMatch = '*' | readonly EntityTag[];

/** `If-Match`, as `updateIfMatch` and `deleteIfMatch` check it: the versions its strong tags name. */
export type IfMatch = IfMatchVersions;

/** A parameter decorator's enhancer that applies a method decorator to the handler. */
function describedBy(decorator: MethodDecorator): ParameterDecorator {
  return (target, key) => {
    if (key !== undefined) {
      decorator(target, key, Object.getOwnPropertyDescriptor(target, key)!);
    }
  };
}

/**
 * The request's `If-Match` (400 when malformed): undefined without one or with `*` (any existing
 * record will do; a missing one is 404 either way). Without one, 428 when the service requires it
 * (`REQUIRE_IF_MATCH`). Documents the header, 412 and 428.
 */
export const IfMatch = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IfMatch | undefined =>
    readIfMatch(context.getArgByIndex<Request>(0)),
  [describedBy(ApiConditionalWrite())],
);

/** The request's `If-None-Match` (400 when malformed), for `setETag`. Documents the header and 304. */
export const IfNoneMatch = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IfNoneMatch | undefined => {
    const value = context.getArgByIndex<Request>(0).headers['if-none-match'];
    return value === undefined ? undefined : parseCondition('If-None-Match', value);
  },
  [describedBy(ApiConditionalRead())],
);

/** The largest version a version column (`integer`) holds. */
const MAX_VERSION = 2 ** 31 - 1;

/** Strong tags compared strongly: a weak tag, or one this service never made, matches nothing (412). */
export function readIfMatch(request: Request): IfMatch | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) {
    if (request.app.get(REQUIRE_IF_MATCH_SETTING) === true) {
      throw new PreconditionRequiredError();
    }
    return undefined;
  }
  const condition = parseCondition('If-Match', header);
  if (condition === '*') {
    return undefined;
  }
  const versions: number[] = [];
  for (const tag of condition) {
    if (!tag.weak && /^[1-9]\d{0,9}$/.test(tag.opaque) && Number(tag.opaque) <= MAX_VERSION) {
      versions.push(Number(tag.opaque));
    }
  }
  return { versions };
}

/** `etagc` of RFC 9110: visible ASCII but `"`, and obs-text. */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/** `*`, or a comma-separated list of entity tags (empty elements allowed, as in any HTTP list). */
export function parseCondition(header: string, value: string): IfNoneMatch {
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
 * Sets the `ETag` of a record at this version. Given the request's `If-None-Match`, answers the
 * 304 Not Modified to return in place of the record when it names this version (weakly, or `*`):
 * a web `Response`, which Nest sends as it is, with the headers set so far.
 *
 * ```ts
 * return setETag(response, plant.version, ifNoneMatch) ?? plantView(plant);
 * ```
 */
export function setETag(response: Response, version: number): void;
export function setETag(
  response: Response,
  version: number,
  ifNoneMatch: IfNoneMatch | undefined,
): globalThis.Response | undefined;
export function setETag(
  response: Response,
  version: number,
  ifNoneMatch?: IfNoneMatch,
): globalThis.Response | undefined {
  response.setHeader('ETag', `"${version}"`);
  const opaque = String(version);
  if (ifNoneMatch === '*' || ifNoneMatch?.some((tag) => tag.opaque === opaque)) {
    return new globalThis.Response(null, { status: 304 });
  }
  return undefined;
}
