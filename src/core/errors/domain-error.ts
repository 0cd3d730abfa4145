/** Services throw these rather than HTTP exceptions; `error-status.ts` maps each kind to a status. */
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
  /** Its source logs the cause once for every request it fails, so that a burst writes no line each. */
  readonly loggedAtSource: boolean;

  constructor(message?: string, options?: DomainErrorOptions) {
    super(message, options);
    this.loggedAtSource = options?.loggedAtSource ?? false;
  }
}

export interface DomainErrorOptions extends ErrorOptions {
  readonly loggedAtSource?: boolean;
}

/** The database, or another service a request needs, cannot be reached in time; a retry may work. */
export class ServiceUnavailableError extends DomainError {
  override readonly name = 'ServiceUnavailableError';
  readonly kind = 'unavailable';

  constructor(message = 'The database is unavailable; retry later', options?: DomainErrorOptions) {
    super(message, options);
  }
}

/** From `LoadShedder`, which logs the whole episode once. */
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

/** The record's version has reached the last its column holds: it can no longer change. Nothing was changed. */
export class VersionExhaustedError extends DomainError {
  override readonly name = 'VersionExhaustedError';
  readonly kind = 'conflict';

  constructor(
    message = 'The record has reached its last version and can no longer change; create a new one',
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
