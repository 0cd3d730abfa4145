import { PlantStoreNetworkError, PlantStoreTimeoutError } from './errors.js';

/** A bearer token, or what gives one: called for every request sent, so that an expiring token can be renewed. */
export type TokenSource = string | (() => string | Promise<string>);

/** A request as the retry rule sees it: its method, and its path below the client's `baseUrl`. */
export interface RetryCandidate {
  /** `GET`, `POST`… */
  readonly method: string;
  /** The path below `baseUrl`, as sent: `/plants/10`. */
  readonly path: string;
}

export interface RetryOptions {
  /** How many times one call may be sent, the first included (3 when left out). */
  readonly attempts?: number;
  /**
   * The longest pause before sending a call again, in milliseconds (10 000
   * when left out). An answer whose `Retry-After` asks for a longer one is
   * not retried: it is thrown.
   */
  readonly maxDelayMs?: number;
  /**
   * Whether a request may be sent again: {@link isIdempotent} when left out.
   * Answering 429 or 503, a request was most likely not carried out; but a
   * proxy may answer 503 for one that was, so only what may safely be
   * carried out twice should be retried.
   */
  readonly retryable?: (request: RetryCandidate) => boolean;
}

export interface TransportOptions {
  readonly baseUrl: string;
  readonly token: TokenSource;
  readonly timeoutMs: number;
  readonly retry: RetryOptions | false;
}

/** The statuses that say "not now": the request was refused before being carried out. */
const RETRIED_STATUSES = new Set([429, 503]);

/** The methods HTTP defines as idempotent. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** A status whose response cannot have a body, which `new Response()` refuses to be given one. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** The pause before another attempt when the answer has no `Retry-After`: doubled at each attempt. */
const FIRST_DELAY_MS = 1_000;

const DELAY_SECONDS = /^\d+$/;

/**
 * The default retry rule: the idempotent methods (GET, HEAD, OPTIONS, TRACE,
 * PUT, DELETE), and `POST /plants`, whose plant carries the id the client
 * chose: the same plant sent again is answered as stored, and written once.
 */
export function isIdempotent({ method, path }: RetryCandidate): boolean {
  return IDEMPOTENT_METHODS.has(method) || (method === 'POST' && path === '/plants');
}

/**
 * `fetch`, as the client sends each request with: sent again after a 429 or
 * a 503 as `retry` says, each attempt with a bearer token asked for anew
 * (unless the request carries an `Authorization` of its own) and given
 * `timeoutMs` for its whole exchange, or less if the request's own signal
 * aborts first. It reads the answer's body itself, so that everything that
 * can fail on the way (the connection, the timeout) fails here, and becomes
 * a {@link PlantStoreNetworkError}; the request's own signal aborting
 * rejects with its reason, as `fetch` does.
 */
export function transport(
  fetch: (request: Request) => Promise<Response>,
  { baseUrl, token, timeoutMs, retry }: TransportOptions,
): (request: Request) => Promise<Response> {
  const attempts = retry === false ? 1 : (retry.attempts ?? 3);
  const maxDelayMs = retry === false ? 0 : (retry.maxDelayMs ?? 10_000);
  const retryable = (retry === false ? undefined : retry.retryable) ?? isIdempotent;

  async function send(request: Request): Promise<Response> {
    const headers = new Headers(request.headers);
    if (!headers.has('Authorization')) {
      headers.set('Authorization', `Bearer ${typeof token === 'string' ? token : await token()}`);
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([request.signal, timeout]);
    const exchange = `${request.method} ${request.url}`;
    try {
      const response = await fetch(new Request(request, { headers, signal }));
      const body = await response.arrayBuffer();
      return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, response);
    } catch (error) {
      if (request.signal.aborted) {
        throw request.signal.reason;
      }
      if (timeout.aborted) {
        throw new PlantStoreTimeoutError(`${exchange}: no answer within ${timeoutMs} ms`, { cause: error });
      }
      throw new PlantStoreNetworkError(`${exchange}: no answer (${describe(error)})`, { cause: error });
    }
  }

  return async (request) => {
    // Abort as fetch does, before anything is sent (or a token asked for), when the caller already has.
    request.signal.throwIfAborted();
    const mayRetry =
      attempts > 1 && retryable({ method: request.method, path: pathBelow(baseUrl, request.url) });
    for (let attempt = 1; ; attempt++) {
      const last = !mayRetry || attempt >= attempts;
      const response = await send(last ? request : request.clone());
      if (last || !RETRIED_STATUSES.has(response.status)) {
        return response;
      }
      const delay = delayBeforeRetry(response, attempt);
      if (delay > maxDelayMs) {
        return response;
      }
      await pause(delay, request.signal);
    }
  };
}

/**
 * How long to wait before attempt `attempt + 1`: what `Retry-After` says (in
 * seconds, or as a date), or else a pause doubled at each attempt.
 */
function delayBeforeRetry(response: Response, attempt: number): number {
  const retryAfter = response.headers.get('Retry-After')?.trim();
  if (retryAfter !== undefined && DELAY_SECONDS.test(retryAfter)) {
    return Number(retryAfter) * 1000;
  }
  const date = retryAfter === undefined ? NaN : Date.parse(retryAfter);
  if (!Number.isNaN(date)) {
    return Math.max(0, date - Date.now());
  }
  return FIRST_DELAY_MS * 2 ** (attempt - 1);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    signal.addEventListener('abort', aborted, { once: true });
  });
}

/** The path of `url` below the path of `baseUrl` (`/plants/10` below `https://example.com/store`). */
function pathBelow(baseUrl: string, url: string): string {
  const path = new URL(url).pathname;
  const prefix = new URL(baseUrl, url).pathname.replace(/\/+$/, '');
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
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
