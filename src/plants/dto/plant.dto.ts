import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

import type { Int64 } from '../../core/common/int64.js';
import {
  PLANT_NAME_DESCRIPTION,
  PLANT_NAME_RULES,
  PLANT_TAG_DESCRIPTION,
  PLANT_TAG_RULES,
} from './plant-fields.js';

/** A stored plant read back: a Plant with its id, the shape of NewPlant (documented as such). */
export interface StoredPlantView {
  readonly id: Int64;
  readonly name: string;
  readonly tag?: string;
}

@ApiSchema({ name: 'Plant', description: 'A plant in the store' })
export class PlantDto {
  @ApiProperty({
    type: 'string',
    description: PLANT_NAME_DESCRIPTION,
    minLength: PLANT_NAME_RULES.minLength,
    maxLength: PLANT_NAME_RULES.maxLength,
    example: 'Monstera deliciosa',
  })
  readonly name!: string;

  @ApiPropertyOptional({
    type: 'string',
    description: PLANT_TAG_DESCRIPTION,
    minLength: PLANT_TAG_RULES.minLength,
    maxLength: PLANT_TAG_RULES.maxLength,
    example: 'aroid',
  })
  readonly tag?: string;

  /** Never `null` and never an `id`: absent fields are left out. The one list of a plant's fields in answers. */
  static from(plant: { readonly name: string; readonly tag?: string | null }): PlantDto {
    return plant.tag === null || plant.tag === undefined
      ? { name: plant.name }
      : { name: plant.name, tag: plant.tag };
  }
}
