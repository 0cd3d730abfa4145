import { BadRequestException, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';

import { type IfMatch as IfMatchVersions, LAST_VERSION, wholeSeconds } from '../database/if-match.js';
import { PreconditionRequiredError } from '../errors/domain-error.js';
import { ApiConditionalRead, ApiConditionalWrite } from '../openapi/conditional.decorator.js';

/**
 * Conditional requests (RFC 9110, section 13) on records with a `@VersionColumn()`: the version is
 * the record's strong ETag, `"<version>"`, and its `@UpdateDateColumn()`, when it has one, its
 * `Last-Modified`. A handler takes `@IfMatch()` (`If-Match`, else `If-Unmodified-Since`) to pass to
 * `updateIfMatch` or `deleteIfMatch`, and `@IfNoneMatch()` (`If-None-Match`, else
 * `If-Modified-Since`) to pass to `setValidators`; each documents its headers and answers in the
 * OpenAPI document.
 */

/** The Express setting (`app.set`) that says whether changes need `If-Match`: `REQUIRE_IF_MATCH`. */
export const REQUIRE_IF_MATCH_SETTING = 'require if-match';

/** One entity tag of a condition: its opaque part (without quotes), and whether it is weak (`W/"…"`). */
export interface EntityTag {
  readonly opaque: string;
  readonly weak: boolean;
}

/** A condition's entity tags: `*` (any current representation), or the tags listed. */
export type EntityTags = '*' | readonly EntityTag[];

/** `If-None-Match`'s tags; without it, `If-Modified-Since`. */
export interface IfNoneMatch {
  readonly tags?: EntityTags;
  readonly modifiedSince?: Date;
}

/** `If-Match`, as `updateIfMatch` and `deleteIfMatch` check it: the versions its strong tags name, or `If-Unmodified-Since`. */
export type IfMatch = IfMatchVersions;

/** A parameter decorator's enhancer that applies a method decorator to the handler: how a header documents itself. */
export function describedBy(decorator: MethodDecorator): ParameterDecorator {
  return (target, key) => {
    if (key !== undefined) {
      decorator(target, key, Object.getOwnPropertyDescriptor(target, key)!);
    }
  };
}

/**
 * The request's `If-Match` (400 when malformed): undefined with `*` (any existing record will do; a
 * missing one is 404 either way). Without one, 428 when the service requires it (`REQUIRE_IF_MATCH`),
 * else its `If-Unmodified-Since`, if any. Documents the headers, 412 and 428.
 */
export const IfMatch = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IfMatch | undefined =>
    readIfMatch(context.getArgByIndex<Request>(0)),
  [describedBy(ApiConditionalWrite())],
);

/**
 * The request's `If-None-Match` (400 when malformed), or without one its `If-Modified-Since`, for
 * `setValidators`. Documents the headers and 304.
 */
export const IfNoneMatch = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IfNoneMatch | undefined =>
    readIfNoneMatch(context.getArgByIndex<Request>(0)),
  [describedBy(ApiConditionalRead())],
);

export function readIfNoneMatch(request: Request): IfNoneMatch | undefined {
  const { 'if-none-match': tags, 'if-modified-since': modifiedSince } = request.headers;
  if (tags !== undefined) {
    return { tags: parseCondition('If-None-Match', tags) };
  }
  const time = modifiedSince === undefined ? undefined : parseHttpDate(modifiedSince);
  return time === undefined ? undefined : { modifiedSince: time };
}

/** Strong tags compared strongly: a weak tag, or one this service never made, matches nothing (412). */
export function readIfMatch(request: Request): IfMatch | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) {
    if (request.app.get(REQUIRE_IF_MATCH_SETTING) === true) {
      throw new PreconditionRequiredError();
    }
    const unmodifiedSince = request.headers['if-unmodified-since'];
    const time = unmodifiedSince === undefined ? undefined : parseHttpDate(unmodifiedSince);
    return time === undefined ? undefined : { unmodifiedSince: time };
  }
  const condition = parseCondition('If-Match', header);
  if (condition === '*') {
    return undefined;
  }
  const versions: number[] = [];
  for (const tag of condition) {
    if (!tag.weak && /^[1-9]\d{0,9}$/.test(tag.opaque) && Number(tag.opaque) <= LAST_VERSION) {
      versions.push(Number(tag.opaque));
    }
  }
  return { versions };
}

/** `etagc` of RFC 9110: visible ASCII but `"`, and obs-text. */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/** `*`, or a comma-separated list of entity tags (empty elements allowed, as in any HTTP list). */
export function parseCondition(header: string, value: string): EntityTags {
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

/** What `setValidators` reads of a record: its version, and the time of its last change if it keeps one. */
export interface Validated {
  readonly version: number;
  readonly updatedAt?: Date;
}

/**
 * Sets the record's `ETag` and, when it keeps the time of its last change, its `Last-Modified`. Given
 * the request's `@IfNoneMatch()`, answers the 304 Not Modified to return in place of the record when
 * `If-None-Match` names this version (weakly, or `*`), or, without one, when it has not changed since
 * `If-Modified-Since`: a web `Response`, which Nest sends as it is, with the headers set so far.
 *
 * ```ts
 * return setValidators(response, plant, ifNoneMatch) ?? plantView(plant);
 * ```
 */
export function setValidators(response: Response, record: Validated): void;
export function setValidators(
  response: Response,
  record: Validated,
  ifNoneMatch: IfNoneMatch | undefined,
): globalThis.Response | undefined;
export function setValidators(
  response: Response,
  { version, updatedAt }: Validated,
  ifNoneMatch?: IfNoneMatch,
): globalThis.Response | undefined {
  response.setHeader('ETag', `"${version}"`);
  if (updatedAt) {
    response.setHeader('Last-Modified', updatedAt.toUTCString());
  }
  const { tags, modifiedSince } = ifNoneMatch ?? {};
  const opaque = String(version);
  const unchanged =
    tags !== undefined
      ? tags === '*' || tags.some((tag) => tag.opaque === opaque)
      : modifiedSince !== undefined &&
        updatedAt !== undefined &&
        wholeSeconds(updatedAt) <= modifiedSince.getTime();
  return unchanged ? new globalThis.Response(null, { status: 304 }) : undefined;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** IMF-fixdate, and the two obsolete forms a recipient must still read (RFC 9110, section 5.6.7). */
const HTTP_DATES = [
  /^[A-Z][a-z]{2}, (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/,
  /^[A-Z][a-z]+, (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/,
  /^[A-Z][a-z]{2} ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/,
];

/** An HTTP-date as a time; anything else is not one, and a condition that is not one is ignored (RFC 9110). */
export function parseHttpDate(value: string): Date | undefined {
  const [fixdate, rfc850, asctime] = HTTP_DATES.map((pattern) => pattern.exec(value.trim()));
  let parts: [day: string, month: string, year: string, hour: string, minute: string, second: string];
  if (fixdate) {
    parts = [fixdate[1], fixdate[2], fixdate[3], fixdate[4], fixdate[5], fixdate[6]];
  } else if (rfc850) {
    // A two-digit year more than 50 years ahead is in the past century.
    const year = 2000 + Number(rfc850[3]);
    parts = [
      rfc850[1],
      rfc850[2],
      String(year > new Date().getUTCFullYear() + 50 ? year - 100 : year),
      rfc850[4],
      rfc850[5],
      rfc850[6],
    ];
  } else if (asctime) {
    parts = [asctime[2].trim(), asctime[1], asctime[6], asctime[3], asctime[4], asctime[5]];
  } else {
    return undefined;
  }
  const [day, month, year, hour, minute, second] = parts;
  const monthIndex = MONTHS.indexOf(month);
  const time = Date.UTC(Number(year), monthIndex, Number(day), Number(hour), Number(minute), Number(second));
  const date = new Date(time);
  // A day the month does not have (31 Feb) is not a date.
  return monthIndex === -1 || date.getUTCDate() !== Number(day) || Number(second) > 59 ? undefined : date;
}
