import { BadRequestException } from '@nestjs/common';
import { ValidateIf } from 'class-validator';

import { type Int64, int64ToString } from '../common/int64.js';

/**
 * A JSON Merge Patch (RFC 7396) DTO: every property optional; one the record may lack is nullable,
 * `null` removing it; the others keep a create's rules and refuse `null`. An `id`, if sent, must be
 * the path's (`patchChanges`).
 *
 * ```ts
 * export class PlantPatchDto {
 *   @IsInt64() @IsOptionalNotNull() readonly id?: Int64;
 *   @IsText(PLANT_TAG_RULES) @IsOptionalOrNull() readonly tag?: string | null;
 * }
 * ```
 */

/** The changes of a merge patch DTO: its properties but `id`, each optional (`null` where the DTO allows it). */
export type MergePatch<P> = Partial<Omit<P, 'id'>>;

/** The property may be left out, or sent as `null` (a merge patch's "remove it"); else its rules apply. */
export function IsOptionalOrNull(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined && value !== null);
}

/** The properties sent, but `id`, which must equal the path's: an id is never changed (400). */
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
