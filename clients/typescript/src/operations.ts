/**
 * The calls' types, from the document's (src/generated/openapi.ts) as
 * openapi-fetch reads them: a path the document gains (`npm run openapi`) is
 * a call the client makes, typed, with no code of its own.
 */
import type { FetchResponse, MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';

import type { paths } from './generated/openapi.js';

/** As openapi-fetch has it: the options may be left out when none is required; others are let through. */
type InitParam<Init> =
  RequiredKeysOf<Init> extends never
    ? [(Init & { [option: string]: unknown })?]
    : [Init & { [option: string]: unknown }];

/**
 * What a call answers when it succeeds (a failure is thrown): `data`, the
 * body as the document types it, and the `response` it came in.
 */
export type Answer<Operation, Init> = Omit<
  Exclude<FetchResponse<Operation & Record<string | number, unknown>, Init, MediaType>, { error: unknown }>,
  'error'
>;

/** Calls of one method: any path that has it, with its parameters and body as the document has them. */
export type Call<Method extends HttpMethod> = <
  Path extends PathsWithMethod<paths, Method>,
  Init extends MaybeOptionalInit<paths[Path], Method>,
>(
  path: Path,
  ...init: InitParam<Init>
) => Promise<Answer<paths[Path][Method], Init>>;

/** The paths whose `GET` answers a list. */
export type ListingPath = {
  [Path in PathsWithMethod<paths, 'get'>]: Answer<
    paths[Path]['get'],
    object
  >['data'] extends readonly unknown[]
    ? Path
    : never;
}[PathsWithMethod<paths, 'get'>];

/** Every page of a listing, in order, each as the document types it. */
export type Pages = <Path extends ListingPath, Init extends MaybeOptionalInit<paths[Path], 'get'>>(
  path: Path,
  ...init: InitParam<Init>
) => AsyncIterableIterator<Answer<paths[Path]['get'], Init>['data']>;

/** Every operation of the document, by method. */
export interface Operations {
  readonly GET: Call<'get'>;
  readonly PUT: Call<'put'>;
  readonly POST: Call<'post'>;
  readonly DELETE: Call<'delete'>;
  readonly OPTIONS: Call<'options'>;
  readonly HEAD: Call<'head'>;
  readonly PATCH: Call<'patch'>;
}
