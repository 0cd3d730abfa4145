/**
 * What went wrong, in the domain's words. Services throw these instead of
 * HTTP exceptions; `error-status.ts` decides what each kind means over HTTP.
 */
export type DomainErrorKind = 'conflict' | 'not-found' | 'unavailable';

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
}

/** The database cannot be reached, or did not answer in time. Retrying later may work. */
export class ServiceUnavailableError extends DomainError {
  override readonly name = 'ServiceUnavailableError';
  readonly kind = 'unavailable';

  constructor(message = 'The database is unavailable; retry later', options?: ErrorOptions) {
    super(message, options);
  }
}
