import createClient from 'openapi-fetch';

import { PlantStoreError, PlantStoreNetworkError, PlantStoreTimeoutError } from './errors.js';
import type { paths } from './generated/openapi.js';
import { toInt64, type Int64Input } from './int64.js';
import { parseJson, stringifyWithId } from './json.js';
import type {
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
  /** A bearer token the service accepts. */
  readonly token: string;
  /** The fetch to send requests with: `globalThis.fetch` when left out. */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** How long a request may take, its answer's body included, in milliseconds (10 000 when left out). */
  readonly timeoutMs?: number;
}

export interface PlantStoreClient {
  /** Stores a plant, or finds exactly this plant already stored; answers it without its id. */
  addPlant(newPlant: NewPlantInput): Promise<Plant>;
  /** The plant stored under `id` (a 404 {@link PlantStoreError} when there is none). */
  getPlant(id: Int64Input): Promise<NewPlant>;
  /**
   * The plant stored under `id`, and its ETag: what `updatePlant` and
   * `deletePlant` take as `ifMatch`, so that they change it only if no one
   * else has since.
   */
  getPlantWithEtag(id: Int64Input): Promise<PlantWithEtag>;
  /**
   * Changes the plant stored under `id` by a JSON Merge Patch: the members
   * given are set, `tag: null` removes the tag. Answers the plant as stored
   * now and its new ETag. With `ifMatch`, a plant changed since that ETag
   * was read is left alone: a {@link PlantStorePreconditionFailedError}.
   */
  updatePlant(id: Int64Input, patch: PlantPatch, precondition?: Precondition): Promise<PlantWithEtag>;
  /** One page of plants, in id order, and where the next one starts. */
  listPlants(options?: ListPlantsOptions): Promise<PlantPage>;
  /** Every plant (with the tag, when one is given), in id order, fetched a page of `limit` at a time. */
  plants(options?: Omit<ListPlantsOptions, 'after'>): AsyncIterableIterator<NewPlant>;
  /**
   * Deletes the plant stored under `id` (a 404 {@link PlantStoreError} when
   * there is none); with `ifMatch`, only if it is still that version (a
   * {@link PlantStorePreconditionFailedError} otherwise).
   */
  deletePlant(id: Int64Input, precondition?: Precondition): Promise<void>;
}

/** A status whose response cannot have a body, which `new Response()` refuses to be given one. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

const INT64_DIGITS = /^-?\d{1,19}$/;

const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

/**
 * A client of the Plant Store service. Every method throws a
 * {@link PlantStoreError} when the service answers with a failure, a
 * {@link PlantStoreNetworkError} when no answer comes (a
 * {@link PlantStoreTimeoutError} when it does not come in time), and a
 * `RangeError` or `TypeError`, before sending anything, for an id that is not
 * an exact int64.
 */
export function createPlantStoreClient({
  baseUrl,
  token,
  fetch = globalThis.fetch,
  timeoutMs = 10_000,
}: PlantStoreClientOptions): PlantStoreClient {
  const api = createClient<paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${token}` },
    fetch: withTimeout(fetch, timeoutMs),
  });

  async function listPlants({ limit, after, tag }: ListPlantsOptions = {}): Promise<PlantPage> {
    const query = { limit, after: after === undefined ? undefined : toInt64(after, 'after'), tag };
    const { data, error, response } = await api.GET('/plants', { params: { query }, parseAs: 'text' });
    if (!response.ok) {
      throw PlantStoreError.fromResponse(response, error);
    }
    return { plants: parseJson(data!) as NewPlant[], next: nextAfter(response) };
  }

  async function readPlant(id: Int64Input): Promise<{ plant: NewPlant; response: Response }> {
    const { data, error, response } = await api.GET('/plants/{id}', {
      params: { path: { id: toInt64(id, 'id') } },
      parseAs: 'text',
    });
    if (!response.ok) {
      throw PlantStoreError.fromResponse(response, error);
    }
    return { plant: parseJson(data!) as NewPlant, response };
  }

  async function* plants({
    limit,
    tag,
  }: Omit<ListPlantsOptions, 'after'> = {}): AsyncIterableIterator<NewPlant> {
    let after: bigint | undefined;
    do {
      const page = await listPlants({ limit, after, tag });
      yield* page.plants;
      after = page.next;
    } while (after !== undefined);
  }

  return {
    async addPlant(newPlant) {
      const { data, error, response } = await api.POST('/plants', {
        body: { ...newPlant, id: toInt64(newPlant.id, 'id') },
        bodySerializer: stringifyWithId,
        parseAs: 'text',
      });
      if (!response.ok) {
        throw PlantStoreError.fromResponse(response, error);
      }
      return parseJson(data!) as Plant;
    },

    async getPlant(id) {
      return (await readPlant(id)).plant;
    },

    async getPlantWithEtag(id) {
      const { plant, response } = await readPlant(id);
      return { plant, etag: etagOf(response) };
    },

    async updatePlant(id, patch, { ifMatch } = {}) {
      const { data, error, response } = await api.PATCH('/plants/{id}', {
        params: { path: { id: toInt64(id, 'id') } },
        headers: { 'Content-Type': MERGE_PATCH_MEDIA_TYPE, 'If-Match': ifMatch },
        body: patch,
        parseAs: 'text',
      });
      if (!response.ok) {
        throw PlantStoreError.fromResponse(response, error);
      }
      return { plant: parseJson(data!) as NewPlant, etag: etagOf(response) };
    },

    listPlants,
    plants,

    async deletePlant(id, { ifMatch } = {}) {
      const { error, response } = await api.DELETE('/plants/{id}', {
        params: { path: { id: toInt64(id, 'id') } },
        headers: { 'If-Match': ifMatch },
      });
      if (!response.ok) {
        throw PlantStoreError.fromResponse(response, error);
      }
    },
  };
}

/**
 * `fetch`, given `timeoutMs` for the whole exchange. It reads the answer's
 * body itself, so that everything that can fail on the way (the connection,
 * the timeout) fails here, and becomes a {@link PlantStoreNetworkError}.
 */
function withTimeout(
  fetch: (request: Request) => Promise<Response>,
  timeoutMs: number,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const signal = AbortSignal.timeout(timeoutMs);
    const exchange = `${request.method} ${request.url}`;
    try {
      const response = await fetch(new Request(request, { signal }));
      const body = await response.arrayBuffer();
      return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, response);
    } catch (error) {
      if (signal.aborted) {
        throw new PlantStoreTimeoutError(`${exchange}: no answer within ${timeoutMs} ms`, { cause: error });
      }
      throw new PlantStoreNetworkError(`${exchange}: no answer (${describe(error)})`, { cause: error });
    }
  };
}

/** The answer's ETag, which the service sends with every plant it answers. */
function etagOf(response: Response): string {
  const etag = response.headers.get('ETag');
  if (etag === null) {
    throw new Error('The service answered the plant without an ETag header');
  }
  return etag;
}

/** The `after` of the page that the `Link` header's `rel="next"` names, if it names one. */
function nextAfter(response: Response): bigint | undefined {
  const link = response.headers.get('Link');
  for (const [, target, parameters] of link?.matchAll(/<([^>]*)>([^,]*)/g) ?? []) {
    const rel = /;\s*rel\s*=\s*"?([^";]*)"?/i.exec(parameters)?.[1];
    if (rel?.toLowerCase().split(/\s+/).includes('next')) {
      // The target is relative to the service; any base will do, as only its query is read.
      const after = new URL(target, 'http://localhost').searchParams.get('after');
      if (after === null || !INT64_DIGITS.test(after)) {
        throw new Error(`The Link header's next page has no int64 after: ${link}`);
      }
      return BigInt(after);
    }
  }
  return undefined;
}

/** `fetch failed` alone says little: Node.js keeps the reason (a refused connection, a reset) in its cause. */
function describe(error: unknown): string {
  const message = hasMessage(error) ? error.message : String(error);
  const cause = hasMessage(error) ? error.cause : undefined;
  return hasMessage(cause) ? `${message}: ${cause.message}` : message;
}

/** Not `instanceof Error`: what fetch throws may come from another realm (a test sandbox, an iframe). */
function hasMessage(value: unknown): value is { readonly message: string; readonly cause?: unknown } {
  return typeof value === 'object' && value !== null && typeof (value as Error).message === 'string';
}
