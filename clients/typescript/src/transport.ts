import { PlantStoreNetworkError, PlantStoreTimeoutError } from './errors.js';

/** A bearer token, or what gives one: called for every request sent, so that an expiring token can be renewed. */
export type TokenSource = string | (() => string | Promise<string>);

/** A status whose response cannot have a body, which `new Response()` refuses to be given one. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * `fetch`, as the client sends each request with: its bearer token added
 * (unless the request carries an `Authorization` of its own), and given
 * `timeoutMs` for the whole exchange, or less if the request's own signal
 * aborts first. It reads the answer's body itself, so that everything that
 * can fail on the way (the connection, the timeout) fails here, and becomes
 * a {@link PlantStoreNetworkError}; the request's own signal aborting
 * rejects with its reason, as `fetch` does.
 */
export function transport(
  fetch: (request: Request) => Promise<Response>,
  { token, timeoutMs }: { readonly token: TokenSource; readonly timeoutMs: number },
): (request: Request) => Promise<Response> {
  return async (request) => {
    // Abort as fetch does, before anything is sent (or a token asked for), when the caller already has.
    request.signal.throwIfAborted();
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
  };
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
