import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';

import type { Int64 } from '../../core/common/int64.js';
import { IsInt64, IsIntegerBetween, IsOptionalNotNull, IsText } from '../../core/validation/constraints.js';
import { integerFromText } from '../../core/validation/query-transforms.js';
import { PLANT_TAG_DESCRIPTION, PLANT_TAG_RULES } from './plant-fields.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The query string of `GET /plants`: a page of plants in id order. */
export class ListPlantsQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: 'The maximum number of results to return',
  })
  @Transform(integerFromText)
  @IsIntegerBetween(1, MAX_PAGE_SIZE)
  @IsOptionalNotNull()
  readonly limit?: number;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int64',
    description:
      'Return the plants whose id is greater than this: the last id of the previous page (see the Link header)',
  })
  @Transform(integerFromText)
  @IsInt64()
  @IsOptionalNotNull()
  readonly after?: Int64;

  @ApiPropertyOptional({
    type: 'string',
    minLength: PLANT_TAG_RULES.minLength,
    maxLength: PLANT_TAG_RULES.maxLength,
    description: `Only the plants with exactly this tag (${PLANT_TAG_DESCRIPTION.toLowerCase()})`,
  })
  @IsText(PLANT_TAG_RULES)
  @IsOptionalNotNull()
  readonly tag?: string;
}
