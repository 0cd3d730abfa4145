import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';

import type { Int64 } from '../../common/int64.js';
import { ApiClosedSchema } from '../../openapi/closed-schema.decorator.js';
import { IsInt64, IsOptionalNotNull, IsText } from '../../validation/constraints.js';
import {
  PLANT_ID_DESCRIPTION,
  PLANT_NAME_DESCRIPTION,
  PLANT_NAME_RULES,
  PLANT_TAG_DESCRIPTION,
  PLANT_TAG_RULES,
} from './plant-fields.js';

const REQUIRED = { message: '$property is required' };

@ApiClosedSchema({ name: 'NewPlant', description: 'The payload used to create a plant' })
export class NewPlantDto {
  @ApiProperty({ type: 'integer', format: 'int64', description: PLANT_ID_DESCRIPTION, example: 10 })
  @IsDefined(REQUIRED)
  @IsInt64()
  readonly id!: Int64;

  @ApiProperty({
    type: 'string',
    description: PLANT_NAME_DESCRIPTION,
    minLength: PLANT_NAME_RULES.minLength,
    maxLength: PLANT_NAME_RULES.maxLength,
    example: 'Monstera deliciosa',
  })
  @IsDefined(REQUIRED)
  @IsText(PLANT_NAME_RULES)
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
