import { DomainError } from '../core/errors/domain-error.js';

/** The id is stored already, with another name or tag: ids are never overwritten. */
export class PlantIdTakenError extends DomainError {
  override readonly name = 'PlantIdTakenError';
  readonly kind = 'conflict';

  constructor(readonly id: string) {
    super(`Plant id ${id} is already taken by a plant with a different name or tag`);
  }
}

/** No plant is stored under the id. */
export class PlantNotFoundError extends DomainError {
  override readonly name = 'PlantNotFoundError';
  readonly kind = 'not-found';

  constructor(readonly id: string) {
    super(`No plant has the id ${id}`);
  }
}
