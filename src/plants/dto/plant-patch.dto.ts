import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

import type { Int64 } from '../../core/common/int64.js';
import { IsInt64, IsOptionalNotNull, IsText } from '../../core/validation/constraints.js';
import { IsOptionalOrNull } from '../../core/validation/merge-patch.js';
import {
  PLANT_ID_DESCRIPTION,
  PLANT_NAME_DESCRIPTION,
  PLANT_NAME_RULES,
  PLANT_TAG_DESCRIPTION,
  PLANT_TAG_RULES,
} from './plant-fields.js';

/**
 * A JSON Merge Patch of a plant (see `merge-patch.ts`): a create's rules, every property optional; the
 * tag, which a plant may lack, nullable, `null` removing it.
 */
@ApiSchema({
  name: 'PlantPatch',
  description:
    'A JSON Merge Patch (RFC 7396) of a plant: the properties sent are set, `"tag": null` removes the tag, ' +
    'the others are left as they are',
})
export class PlantPatchDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int64',
    description: `${PLANT_ID_DESCRIPTION}: if sent, the id in the path (an id cannot be changed)`,
    example: 10,
  })
  @IsInt64()
  @IsOptionalNotNull()
  readonly id?: Int64;

  @ApiPropertyOptional({
    type: 'string',
    description: PLANT_NAME_DESCRIPTION,
    minLength: PLANT_NAME_RULES.minLength,
    maxLength: PLANT_NAME_RULES.maxLength,
    example: 'Monstera deliciosa',
  })
  @IsText(PLANT_NAME_RULES)
  @IsOptionalNotNull()
  readonly name?: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: `${PLANT_TAG_DESCRIPTION}; null removes it`,
    minLength: PLANT_TAG_RULES.minLength,
    maxLength: PLANT_TAG_RULES.maxLength,
    example: 'aroid',
  })
  @IsText(PLANT_TAG_RULES)
  @IsOptionalOrNull()
  readonly tag?: string | null;
}
