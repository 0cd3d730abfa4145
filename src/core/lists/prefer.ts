import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';

import { describedBy } from '../http/conditional-requests.js';
import { maxHeaderSize } from '../http/max-header-size.js';

/** What `Prefer: count=…` may ask of a list (PostgREST's convention). */
export type CountPreference = 'exact' | 'estimated';

const COUNT_PREFERENCES: ReadonlySet<string> = new Set<CountPreference>(['exact', 'estimated']);

/**
 * The count a request's `Prefer` header asks for, as RFC 7240 reads it: a comma-separated list of
 * preferences, each `token[=value]` with `;`-separated parameters; names are case-insensitive, a
 * value may be quoted, and the first `count` counts. Other preferences, and a count this service does
 * not make, are ignored, as a preference may be.
 */
export function countPreference(header: string | readonly string[] | undefined): CountPreference | undefined {
  if (header === undefined) {
    return undefined;
  }
  for (const preference of splitOutsideQuotes(typeof header === 'string' ? header : header.join(','), ',')) {
    const [first] = splitOutsideQuotes(preference, ';');
    const equals = first.indexOf('=');
    const name = (equals === -1 ? first : first.slice(0, equals)).trim().toLowerCase();
    if (name !== 'count') {
      continue;
    }
    const value = equals === -1 ? '' : unquote(first.slice(equals + 1).trim()).toLowerCase();
    return COUNT_PREFERENCES.has(value) ? (value as CountPreference) : undefined;
  }
  return undefined;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '\\' && quoted) {
      index++;
    } else if (character === '"') {
      quoted = !quoted;
    } else if (character === separator && !quoted) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"')
    ? value.slice(1, -1).replace(/\\(.)/g, '$1')
    : value;
}

/**
 * The count the request prefers (`Prefer: count=exact` or `count=estimated`), for `ListPages.page`;
 * documents the header.
 */
export const PreferCount = createParamDecorator(
  (_data: unknown, context: ExecutionContext): CountPreference | undefined =>
    countPreference(context.getArgByIndex<Request>(0).headers.prefer),
  [
    describedBy(
      ApiHeader({
        name: 'Prefer',
        required: false,
        description:
          'RFC 7240 preferences. `count=exact` counts the rows the filters select (Content-Range), falling ' +
          'back to the estimate when counting takes too long; `count=estimated` takes the planner’s ' +
          `estimate, cheap at any size. Others are ignored. The whole request head is at most ${maxHeaderSize} bytes`,
        schema: { type: 'string', minLength: 1, maxLength: maxHeaderSize, examples: ['count=exact'] },
      }),
    ),
  ],
);
