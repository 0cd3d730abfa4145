import { BadRequestException } from '@nestjs/common';
import { ValidateIf } from 'class-validator';

import { type Int64, int64ToString } from '../common/int64.js';

/**
 * JSON Merge Patch (RFC 7396) bodies, declared as a DTO like any other: every
 * property optional; a property the record may lack is nullable, `null`
 * removing it; every other property keeps the rules of a create (reuse them)
 * and refuses `null` (`@IsOptionalNotNull()`). An `id`, if sent, must be the
 * path's (`patchChanges`):
 *
 * ```ts
 * @ApiClosedSchema({ name: 'PlantPatch' })
 * export class PlantPatchDto {
 *   @IsInt64() @IsOptionalNotNull() readonly id?: Int64;
 *   @IsText(PLANT_NAME_RULES) @IsOptionalNotNull() readonly name?: string;
 *   @IsText(PLANT_TAG_RULES) @IsOptionalOrNull() readonly tag?: string | null;
 * }
 * ```
 *
 * Properties left out are left as they are; undeclared ones are refused, as
 * for every body.
 */

/** The changes of a merge patch DTO: its properties but `id`, each optional (`null` where the DTO allows it). */
export type MergePatch<P> = Partial<Omit<P, 'id'>>;

/** The property may be left out, or sent as `null` (a merge patch's "remove it"); else its rules apply. */
export function IsOptionalOrNull(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined && value !== null);
}

/**
 * The changes a merge patch asks for: its properties that were sent, but
 * `id`, which must equal the path's when sent (an id is never changed: 400).
 */
export function patchChanges<P extends object>(patch: P, pathId: Int64): MergePatch<P> {
  const changes: Record<string, unknown> = {};
  for (const [property, value] of Object.entries(patch) as Array<[string, unknown]>) {
    if (property === 'id') {
      // The DTO's rules have made it an int64, when sent.
      const id = value as Int64 | undefined;
      if (id !== undefined && int64ToString(id) !== int64ToString(pathId)) {
        throw new BadRequestException(
          `id ${int64ToString(id)} differs from the id in the path, ${int64ToString(pathId)}: ` +
            'an id cannot be changed',
        );
      }
    } else if (value !== undefined) {
      changes[property] = value;
    }
  }
  return changes as MergePatch<P>;
}
