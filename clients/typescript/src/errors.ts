/**
 * The service answered, with a status other than 2xx. `status` is the HTTP
 * status; `error` and `message` come from the service's `Error` body (when a
 * proxy in between answered with some other body, `error` is the status and
 * `message` names it).
 */
export class PlantStoreError extends Error {
  override readonly name: string = 'PlantStoreError';

  constructor(
    readonly status: number,
    readonly error: number,
    message: string,
    /** The service's `X-Request-Id` for the request: its log lines about the failure carry it. */
    readonly requestId: string | undefined,
  ) {
    super(message);
  }

  /** The error for a non-2xx `response`, whose body (JSON-parsed when it could be) is `body`. */
  static fromResponse(response: Response, body: unknown): PlantStoreError {
    const requestId = response.headers.get('X-Request-Id') ?? undefined;
    const Kind = response.status === 412 ? PlantStorePreconditionFailedError : PlantStoreError;
    if (isErrorBody(body)) {
      return new Kind(response.status, body.error, body.message, requestId);
    }
    const message = `The service answered ${response.status} ${response.statusText}`.trimEnd();
    return new Kind(response.status, response.status, message, requestId);
  }
}

/**
 * A 412: the change was sent with `ifMatch`, and the plant is no longer the
 * version that ETag names: someone changed it since it was read. Nothing was
 * changed; read the plant again (`getPlantWithEtag`) and decide anew. A
 * {@link PlantStoreError} still, so that code that handles those handles it.
 */
export class PlantStorePreconditionFailedError extends PlantStoreError {
  override readonly name: string = 'PlantStorePreconditionFailedError';
}

/**
 * No answer came: the service could not be reached, the connection broke, or
 * (as the subclass {@link PlantStoreTimeoutError}) the answer took longer than
 * the client's `timeoutMs`. `cause` is the error `fetch` failed with. The
 * request may or may not have been carried out.
 */
export class PlantStoreNetworkError extends Error {
  override readonly name: string = 'PlantStoreNetworkError';
}

/** The whole answer did not arrive within the client's `timeoutMs`. */
export class PlantStoreTimeoutError extends PlantStoreNetworkError {
  override readonly name = 'PlantStoreTimeoutError';
}

function isErrorBody(body: unknown): body is { error: number; message: string } {
  return (
    typeof body === 'object' &&
    body !== null &&
    'error' in body &&
    Number.isInteger(body.error) &&
    'message' in body &&
    typeof body.message === 'string'
  );
}
