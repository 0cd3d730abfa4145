import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Header names and values, one after the other, as `writeHead()` takes them: `['X-A', '1', 'X-B', '2']`. */
export type HeaderList = readonly string[];

type GivenHeaders = OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined;

/**
 * A response that carries headers of its own making into its head: the
 * request's id and the security headers, which every answer has unless
 * whoever answers set one of them to something else.
 *
 * Set one by one as each request arrives, these headers cost a dozen
 * `setHeader()` calls per request (each checks its name and value, lower-cases
 * the name and stores the pair), more than anything else the service does for
 * a request. Kept aside until the head is written instead, they go out in the
 * one `writeHead()` call that writes it when nobody else has set a header
 * (an answer written with `writeHead(status, list)`, as `LeanExpressAdapter`
 * writes JSON), checked once there, as Node checks every header it is given.
 * When headers were set (an ETag, `Retry-After`, a `Content-Type` of Express's
 * own), the defaults are set beside them at that moment, but none that was
 * set already, so that a handler's own value wins as it did when the defaults
 * came first.
 */
export interface DefaultHeadersResponse extends ServerResponse {
  defaultHeaders: HeaderList | undefined;
}

/**
 * Gives the response headers to write with its head (see
 * `DefaultHeadersResponse`), a list that is the response's from then on; a
 * response of another kind gets them at once.
 */
export function setDefaultHeaders(response: ServerResponse, headers: HeaderList): void {
  if (acceptsDefaultHeaders(response)) {
    response.defaultHeaders = headers;
    return;
  }
  for (let index = 0; index < headers.length; index += 2) {
    response.setHeader(headers[index], headers[index + 1]);
  }
}

function acceptsDefaultHeaders(response: ServerResponse): response is DefaultHeadersResponse {
  return 'defaultHeaders' in response;
}

/**
 * The headers a `DefaultHeadersResponse`'s `writeHead()` hands to Node's, the
 * first time it is called: its defaults and `given` in one list when nothing
 * else has been set (and `given`, if any, is a list that names none of
 * them); else `given`, once the defaults nobody set are set.
 */
export function headersWithDefaults(response: DefaultHeadersResponse, given: GivenHeaders): GivenHeaders {
  const defaults = response.defaultHeaders;
  if (defaults === undefined) {
    return given;
  }
  response.defaultHeaders = undefined;
  // The names set so far: lower-case, and few (an ETag, say).
  const taken = response.getHeaderNames();
  if (taken.length === 0 && (given === undefined || isFlatListApart(given, defaults))) {
    // The list is this response's own (setDefaultHeaders): Node reads it as the head is written.
    return given === undefined ? (defaults as string[]) : [...defaults, ...given];
  }
  for (let index = 0; index < defaults.length; index += 2) {
    if (!includesName(taken, defaults[index])) {
      response.setHeader(defaults[index], defaults[index + 1]);
    }
  }
  // Node sets what `given` names over what is set, the defaults included.
  return given;
}

/** Whether `given` is a flat list of names and values that names none of `defaults`' headers. */
function isFlatListApart(given: NonNullable<GivenHeaders>, defaults: HeaderList): given is string[] {
  if (!Array.isArray(given) || given.length % 2 !== 0) {
    return false;
  }
  for (let index = 0; index < given.length; index += 2) {
    const name = given[index];
    if (typeof name !== 'string' || typeof given[index + 1] !== 'string' || listNames(defaults, name)) {
      return false;
    }
  }
  return true;
}

/** Whether `list` sets the header `name`, in any letter case. */
function listNames(list: HeaderList, name: string): boolean {
  for (let index = 0; index < list.length; index += 2) {
    if (list[index].length === name.length && list[index].toLowerCase() === name.toLowerCase()) {
      return true;
    }
  }
  return false;
}

/** Whether `lowerCaseNames` holds `name`, in any letter case: compared by length first, it is rarely lower-cased. */
function includesName(lowerCaseNames: readonly string[], name: string): boolean {
  for (const each of lowerCaseNames) {
    if (each.length === name.length && each === name.toLowerCase()) {
      return true;
    }
  }
  return false;
}
