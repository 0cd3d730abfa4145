/**
 * What went wrong, in the domain's words. Services throw these instead of
 * HTTP exceptions; `error-status.ts` decides what each kind means over HTTP.
 */
export type DomainErrorKind =
  | 'conflict'
  | 'not-found'
  /** Well formed, but it cannot be done as asked: it names a record that does not exist, say (422). */
  | 'unprocessable'
  | 'precondition-failed'
  | 'precondition-required'
  | 'unavailable';

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  /**
   * Its source logs the cause itself, once for all the requests it fails (the
   * load shedder, the token issuer's key set), so that a burst of them does not
   * write a line each.
   */
  readonly loggedAtSource: boolean;

  constructor(message?: string, options?: DomainErrorOptions) {
    super(message, options);
    this.loggedAtSource = options?.loggedAtSource ?? false;
  }
}

export interface DomainErrorOptions extends ErrorOptions {
  readonly loggedAtSource?: boolean;
}

/**
 * The database, or another service a request needs (the token issuer's key
 * set), cannot be reached or did not answer in time. Retrying later may work.
 */
export class ServiceUnavailableError extends DomainError {
  override readonly name = 'ServiceUnavailableError';
  readonly kind = 'unavailable';

  constructor(message = 'The database is unavailable; retry later', options?: DomainErrorOptions) {
    super(message, options);
  }
}

/**
 * The process is too far behind to take the request (`LoadShedder`): it is
 * answered 503 at once, and logged once for all such, not each.
 */
export class OverloadedError extends DomainError {
  override readonly name = 'OverloadedError';
  readonly kind = 'unavailable';

  constructor(message = 'The service is overloaded; retry later') {
    super(message, { loggedAtSource: true });
  }
}

/** The record is not at a version `If-Match` names: it changed since the client read it. Nothing was changed. */
export class PreconditionFailedError extends DomainError {
  override readonly name = 'PreconditionFailedError';
  readonly kind = 'precondition-failed';

  constructor(
    message = 'The record has changed since the version If-Match names; read it again for its current ETag',
  ) {
    super(message);
  }
}

/** The service requires `If-Match` on changes (`REQUIRE_IF_MATCH`), and the request has none. */
export class PreconditionRequiredError extends DomainError {
  override readonly name = 'PreconditionRequiredError';
  readonly kind = 'precondition-required';

  constructor(
    message = 'This change needs an If-Match header: send the ETag of the version it applies to, or *',
  ) {
    super(message);
  }
}
