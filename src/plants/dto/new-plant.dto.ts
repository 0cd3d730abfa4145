import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

import type { Int64 } from '../../core/common/int64.js';
import { IsInt64, IsOptionalNotNull, IsPresent, IsText } from '../../core/validation/constraints.js';
import {
  PLANT_ID_DESCRIPTION,
  PLANT_NAME_DESCRIPTION,
  PLANT_NAME_RULES,
  PLANT_TAG_DESCRIPTION,
  PLANT_TAG_RULES,
} from './plant-fields.js';

/** class-validator checks a property's rules from the bottom up: presence first, then the value. */
@ApiSchema({ name: 'NewPlant', description: 'The payload used to create a plant' })
export class NewPlantDto {
  @ApiProperty({ type: 'integer', format: 'int64', description: PLANT_ID_DESCRIPTION, example: 10 })
  @IsInt64()
  @IsPresent()
  readonly id!: Int64;

  @ApiProperty({
    type: 'string',
    description: PLANT_NAME_DESCRIPTION,
    minLength: PLANT_NAME_RULES.minLength,
    maxLength: PLANT_NAME_RULES.maxLength,
    example: 'Monstera deliciosa',
  })
  @IsText(PLANT_NAME_RULES)
  @IsPresent()
  readonly name!: string;

  @ApiPropertyOptional({
    type: 'string',
    description: PLANT_TAG_DESCRIPTION,
    minLength: PLANT_TAG_RULES.minLength,
    maxLength: PLANT_TAG_RULES.maxLength,
    example: 'aroid',
  })
  @IsOptionalNotNull()
  @IsText(PLANT_TAG_RULES)
  readonly tag?: string;
}
