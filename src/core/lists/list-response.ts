import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';

import type { ListDeclaration } from './list-declaration.js';
import type { ListPage } from './list-pages.js';
import { encodeListCursor, maxCursorLength, queryValues } from './list-request.js';
import { maxHeaderSize } from '../http/max-header-size.js';

/** The longest count: an int64's digits. */
const COUNT_DIGITS = 19;

export interface ApiListResponseOptions {
  /** The route's path, as the Link header names it: `/plants`. */
  readonly path: string;
  /** The schema of each item. */
  readonly items: Type;
  readonly description: string;
}

/**
 * The 200 of a list, as `sendListHeaders` answers it: an array of at most the list's `maxLimit`
 * items, `Link` to the next page, and `Content-Range` and `Preference-Applied` when a count was
 * asked for.
 */
export function ApiListResponse<E>(
  list: ListDeclaration<E>,
  options: ApiListResponseOptions,
): MethodDecorator {
  const path = options.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return applyDecorators(
    ApiExtraModels(options.items),
    ApiOkResponse({
      description: options.description,
      schema: { type: 'array', maxItems: list.maxLimit, items: { $ref: getSchemaPath(options.items) } },
      headers: {
        Link: {
          description:
            'The next page, when there is one: the same query and a `cursor` ' +
            `(\`<${options.path}?sort=name&cursor=…>; rel="next"\`), or, in the default order with ` +
            `equality filters alone, \`after\` (\`<${options.path}?limit=20&after=42>; rel="next"\`)`,
          required: false,
          // The request's query, every byte of it percent-encoded at most, and a cursor.
          schema: {
            type: 'string',
            maxLength: 3 * maxHeaderSize + maxCursorLength(list),
            pattern: `^<${path}\\?[^>]*>; rel="next"$`,
          },
        },
        'Content-Range': {
          description:
            'With `Prefer: count=…`: the rows of this page among those the filters select, and their ' +
            'number (`0-19/1042`); `*/1042` for an empty page, or when the page came by `after`, whose ' +
            'position is unknown',
          required: false,
          schema: {
            type: 'string',
            maxLength: 3 * COUNT_DIGITS + 2,
            pattern: `^([0-9]{1,${COUNT_DIGITS}}-[0-9]{1,${COUNT_DIGITS}}|\\*)/[0-9]{1,${COUNT_DIGITS}}$`,
          },
        },
        'Preference-Applied': {
          description:
            'With `Prefer: count=…`: the count Content-Range gives, `count=estimated` when an exact count ' +
            'took too long',
          required: false,
          schema: { type: 'string', enum: ['count=exact', 'count=estimated'] },
        },
      },
    }),
  );
}

/** Sets the page's `Link`, and its `Content-Range` and `Preference-Applied` when it was counted. */
export function sendListHeaders<E>(response: Response, page: ListPage<E>): void {
  const { request, next, count, items } = page;
  if (next !== undefined) {
    const { query } = request;
    const parameters = new URLSearchParams();
    if (query.limit !== undefined) {
      parameters.set('limit', String(query.limit));
    }
    if (request.links === 'after') {
      parameters.set('after', String(next.at(-1)));
    } else if (query.sort !== undefined) {
      parameters.set('sort', query.sort);
    }
    if (request.deleted) {
      parameters.set('deleted', 'only');
    }
    for (const { parameter, value } of request.filters) {
      for (const each of queryValues(value)) {
        parameters.append(parameter.name, each);
      }
    }
    if (request.links === 'cursor') {
      const offset = request.offset === undefined ? undefined : request.offset + items.length;
      parameters.set('cursor', encodeListCursor(request, next, offset));
    }
    const path = response.req.baseUrl + response.req.path;
    response.setHeader('Link', `<${path}?${parameters.toString()}>; rel="next"`);
  }
  if (count !== undefined) {
    const range =
      request.offset === undefined || items.length === 0
        ? '*'
        : `${request.offset}-${request.offset + items.length - 1}`;
    response.setHeader('Content-Range', `${range}/${count.total}`);
    response.setHeader('Preference-Applied', `count=${count.applied}`);
  }
}
