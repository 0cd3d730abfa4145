import { HttpStatus } from '@nestjs/common';

import { DomainError } from '../core/errors/domain-error.js';

/** The id is stored already, with another name or tag: ids are never overwritten. */
export class PlantIdTakenError extends DomainError {
  override readonly name = 'PlantIdTakenError';
  readonly kind = 'conflict';

  constructor(readonly id: string) {
    super(`Plant id ${id} is already taken by a plant with a different name or tag`);
  }
}

export class PlantNotFoundError extends DomainError {
  override readonly name = 'PlantNotFoundError';
  readonly kind = 'not-found';

  constructor(readonly id: string) {
    super(`No plant has the id ${id}`);
  }
}

/** How the OpenAPI document words the plants' 404 and 409. */
export const PLANT_NOT_FOUND = {
  status: HttpStatus.NOT_FOUND,
  description: 'No plant has this id',
  example: new PlantNotFoundError('42').message,
};

export const PLANT_ID_TAKEN = {
  status: HttpStatus.CONFLICT,
  description: 'The id is taken by a plant with a different name or tag',
  example: new PlantIdTakenError('42').message,
};
