import createClient, { mergeHeaders, type Middleware } from 'openapi-fetch';
import type { HttpMethod } from 'openapi-typescript-helpers';

import { PlantStoreError } from './errors.js';
import { responses } from './generated/int64.js';
import type { paths } from './generated/openapi.js';
import { commaSeparated } from './generated/query.js';
import { toInt64, type Int64Input } from './int64.js';
import { parseJson, stringifyJson } from './json.js';
import type { Call, Operations, Pages } from './operations.js';
import { transport, type RetryOptions, type TokenSource } from './transport.js';
import type {
  CallOptions,
  ListPlantsOptions,
  NewPlant,
  NewPlantInput,
  Plant,
  PlantPage,
  PlantPatch,
  PlantWithEtag,
  Precondition,
} from './types.js';

export interface PlantStoreClientOptions {
  /** Where the service is, such as `https://plants.example.com` (a path prefix is kept). */
  readonly baseUrl: string;
  /**
   * A bearer token the service accepts, or a function that gives one (it
   * may be async): called for every request sent, retries included, so
   * that it can hand out a fresh token before the last one expires.
   */
  readonly token: TokenSource;
  /** The fetch to send requests with: `globalThis.fetch` when left out. */
  readonly fetch?: (request: Request) => Promise<Response>;
  /**
   * How long one attempt may take, its answer's body included, in
   * milliseconds (10 000 when left out). A call's own `signal` may end it
   * sooner.
   */
  readonly timeoutMs?: number;
  /**
   * Sending a call again after a 429 or a 503, once the pause its
   * `Retry-After` asks for is over: the idempotent calls, up to 3 attempts,
   * pausing at most 10 s, when left out; `false` sends every call once.
   */
  readonly retry?: RetryOptions | false;
}

/**
 * A client of the Plant Store service. Every operation of its interface is
 * a call (`client.GET('/plants/{id}', { params: { path: { id } } })`),
 * typed from the document; the plants' own methods (`addPlant`…) are
 * shorthands over them.
 */
export interface PlantStoreClient extends Operations {
  /**
   * Adds openapi-fetch middleware, which every call goes through after
   * those added before: `onRequest` may change the request (which does not
   * carry the client's token yet: none is logged by mistake) or answer it,
   * `onResponse` may change the answer (the last one, after any retry),
   * `onError` may turn a failure into an answer. A call may bring its own
   * too (`middleware`).
   */
  use(...middleware: Middleware[]): void;
  /** Removes middleware that `use` added. */
  eject(...middleware: Middleware[]): void;
  /**
   * Every page of a listing, in order: a `GET` that answers a page, sent
   * again with the query of its answer's `Link: <…>; rel="next"` until an
   * answer has none.
   */
  pages: Pages;

  /** Stores a plant, or finds exactly this plant already stored; answers it without its id. */
  addPlant(newPlant: NewPlantInput, options?: CallOptions): Promise<Plant>;
  /** The plant stored under `id` (a 404 {@link PlantStoreError} when there is none). */
  getPlant(id: Int64Input, options?: CallOptions): Promise<NewPlant>;
  /**
   * The plant stored under `id`, and its ETag: what `updatePlant` and
   * `deletePlant` take as `ifMatch`, so that they change it only if no one
   * else has since.
   */
  getPlantWithEtag(id: Int64Input, options?: CallOptions): Promise<PlantWithEtag>;
  /**
   * Changes the plant stored under `id` by a JSON Merge Patch: the members
   * given are set, `tag: null` removes the tag. Answers the plant as stored
   * now and its new ETag. With `ifMatch`, a plant changed since that ETag
   * was read is left alone: a {@link PlantStorePreconditionFailedError}.
   */
  updatePlant(
    id: Int64Input,
    patch: PlantPatch,
    options?: Precondition & CallOptions,
  ): Promise<PlantWithEtag>;
  /** One page of plants, in id order, and where the next one starts. */
  listPlants(options?: ListPlantsOptions & CallOptions): Promise<PlantPage>;
  /** Every plant (with the tag, when one is given), in id order, fetched a page of `limit` at a time. */
  plants(options?: Omit<ListPlantsOptions, 'after'> & CallOptions): AsyncIterableIterator<NewPlant>;
  /**
   * Deletes the plant stored under `id` (a 404 {@link PlantStoreError} when
   * there is none); with `ifMatch`, only if it is still that version (a
   * {@link PlantStorePreconditionFailedError} otherwise).
   */
  deletePlant(id: Int64Input, options?: Precondition & CallOptions): Promise<void>;
}

/** What a call is given, as openapi-fetch takes it; the types come from the document. */
interface Init {
  readonly params?: { readonly query?: Record<string, unknown> };
  readonly parseAs?: 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';
  readonly fetch?: (request: Request) => Promise<Response>;
  readonly [option: string]: unknown;
}

const INT64_DIGITS = /^-?\d{1,19}$/;

const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

/**
 * A client of the Plant Store service. Every call throws a
 * {@link PlantStoreError} when the service answers with a failure, a
 * {@link PlantStoreNetworkError} when no answer comes (a
 * {@link PlantStoreTimeoutError} when it does not come in time), the
 * reason of a call's `signal` when it aborts, and a `RangeError` or
 * `TypeError`, before sending anything, for an id that is not an exact int64.
 */
export function createPlantStoreClient({
  baseUrl,
  token,
  fetch = globalThis.fetch,
  timeoutMs = 10_000,
  retry = {},
}: PlantStoreClientOptions): PlantStoreClient {
  const send = (through: (request: Request) => Promise<Response>) =>
    transport(through, { baseUrl, token, timeoutMs, retry });
  const api = createClient<paths>({ baseUrl, fetch: send(fetch), bodySerializer: serializeBody });
  // The typing is the calls' own (Operations): this one place sends any of them.
  const request = api.request as (
    method: HttpMethod,
    path: string,
    init: object,
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

  /**
   * One operation, by method: openapi-fetch sends it, JSON answers are read
   * with their int64s exact, and a failure is thrown.
   */
  const call = (method: Uppercase<HttpMethod>) =>
    async function (path: string, init: Init = {}): Promise<{ data: unknown; response: Response }> {
      const parseAs = init.parseAs ?? 'json';
      const { data, error, response } = await request(method.toLowerCase() as HttpMethod, path, {
        ...init,
        params: joinLists(init.params, commaSeparated[`${method} ${path}`]),
        // A call's own fetch is sent the same way: token, timeout, retries.
        fetch: init.fetch === undefined ? undefined : send(init.fetch),
        parseAs: parseAs === 'json' ? 'text' : parseAs,
      });
      if (!response.ok) {
        throw PlantStoreError.fromResponse(response, error);
      }
      if (parseAs !== 'json' || typeof data !== 'string' || data === '') {
        return { data, response };
      }
      return { data: parseJson(data, int64sOf(method, path, response.status)), response };
    };

  const GET = call('GET');

  async function* pages(path: string, init: Init = {}): AsyncIterableIterator<unknown> {
    let query = init.params?.query;
    for (;;) {
      const { data, response } = await GET(path, { ...init, params: { ...init.params, query } });
      yield data;
      const next = nextPage(response);
      if (next === undefined) {
        return;
      }
      query = queryOf(next);
    }
  }

  const operations = {
    GET: GET as Call<'get'>,
    PUT: call('PUT') as Call<'put'>,
    POST: call('POST') as Call<'post'>,
    DELETE: call('DELETE') as Call<'delete'>,
    OPTIONS: call('OPTIONS') as Call<'options'>,
    HEAD: call('HEAD') as Call<'head'>,
    PATCH: call('PATCH') as Call<'patch'>,
    pages: pages as Pages,
  };

  async function readPlant(id: Int64Input, { signal, headers }: CallOptions = {}) {
    return operations.GET('/plants/{id}', { params: { path: { id: toInt64(id, 'id') } }, signal, headers });
  }

  async function listPlants({ limit, after, tag, signal, headers }: ListPlantsOptions & CallOptions = {}) {
    const query = { limit, after: after === undefined ? undefined : toInt64(after, 'after'), tag };
    const { data, response } = await operations.GET('/plants', { params: { query }, signal, headers });
    return { plants: data, next: nextAfter(response) };
  }

  return {
    ...operations,
    use: (...middleware) => api.use(...middleware),
    eject: (...middleware) => api.eject(...middleware),

    async addPlant(newPlant, { signal, headers } = {}) {
      const body = { ...newPlant, id: toInt64(newPlant.id, 'id') };
      return (await operations.POST('/plants', { body, signal, headers })).data;
    },

    async getPlant(id, options) {
      return (await readPlant(id, options)).data;
    },

    async getPlantWithEtag(id, options) {
      const { data, response } = await readPlant(id, options);
      return { plant: data, etag: etagOf(response) };
    },

    async updatePlant(id, patch, { ifMatch, signal, headers } = {}) {
      const { data, response } = await operations.PATCH('/plants/{id}', {
        params: { path: { id: toInt64(id, 'id') }, header: { 'If-Match': ifMatch } },
        headers: mergeHeaders({ 'Content-Type': MERGE_PATCH_MEDIA_TYPE }, headers),
        body: patch,
        signal,
      });
      return { plant: data, etag: etagOf(response) };
    },

    listPlants,

    async *plants({ limit, tag, signal, headers } = {}) {
      let after: bigint | undefined;
      do {
        const page = await listPlants({ limit, after, tag, signal, headers });
        yield* page.plants;
        after = page.next;
      } while (after !== undefined);
    },

    async deletePlant(id, { ifMatch, signal, headers } = {}) {
      await operations.DELETE('/plants/{id}', {
        params: { path: { id: toInt64(id, 'id') }, header: { 'If-Match': ifMatch } },
        signal,
        headers,
      });
    },
  };
}

/**
 * A request body as JSON, bigints with every digit; `FormData` and a form
 * (`application/x-www-form-urlencoded`) as openapi-fetch sends them.
 */
function serializeBody(body: unknown, headers?: Headers): string | FormData {
  if (body instanceof FormData) {
    return body;
  }
  if (headers?.get('Content-Type') === 'application/x-www-form-urlencoded') {
    return new URLSearchParams(body as Record<string, string>).toString();
  }
  return stringifyJson(body);
}

/**
 * The query with the lists the document writes comma-separated (`sort=name,-id`) joined so: openapi-fetch
 * would repeat the parameter for each item.
 */
function joinLists(params: Init['params'], names: readonly string[] | undefined): Init['params'] {
  const query = params?.query;
  if (query === undefined || names === undefined || !names.some((name) => Array.isArray(query[name]))) {
    return params;
  }
  const joined: Record<string, unknown> = { ...query };
  for (const name of names) {
    const value = query[name];
    if (Array.isArray(value)) {
      joined[name] = value.join(',');
    }
  }
  return { ...params, query: joined };
}

/** Where the document says the answer of `method path` with `status` holds int64s. */
function int64sOf(method: string, path: string, status: number) {
  const byStatus = responses[`${method} ${path}`];
  return byStatus?.[status] ?? byStatus?.[`${String(status)[0]}XX`] ?? byStatus?.default;
}

/** The answer's ETag, which the service sends with every plant it answers. */
function etagOf(response: Response): string {
  const etag = response.headers.get('ETag');
  if (etag === null) {
    throw new Error('The service answered the plant without an ETag header');
  }
  return etag;
}

/** The target of the `Link` header's `rel="next"`, if it names one. */
function nextPage(response: Response): URL | undefined {
  const link = response.headers.get('Link');
  for (const [, target, parameters] of link?.matchAll(/<([^>]*)>([^,]*)/g) ?? []) {
    const rel = /;\s*rel\s*=\s*"?([^";]*)"?/i.exec(parameters)?.[1];
    if (rel?.toLowerCase().split(/\s+/).includes('next')) {
      // The target is relative to the service; any base will do, as only its query is read.
      return new URL(target, 'http://localhost');
    }
  }
  return undefined;
}

/** A URL's query as openapi-fetch takes one: a name given more than once, a list. */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    query[name] = values.length === 1 ? values[0] : values;
  }
  return query;
}

/** The `after` of the page that the `Link` header's `rel="next"` names, if it names one. */
function nextAfter(response: Response): bigint | undefined {
  const next = nextPage(response);
  if (next === undefined) {
    return undefined;
  }
  const after = next.searchParams.get('after');
  if (after === null || !INT64_DIGITS.test(after)) {
    throw new Error(`The Link header's next page has no int64 after: ${response.headers.get('Link')}`);
  }
  return BigInt(after);
}
