import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsISO8601, Matches } from 'class-validator';

import type { Int64 } from '../../common/int64.js';
import { IsInt64, IsIntegerBetween, IsOptionalNotNull, IsText } from '../../validation/constraints.js';
import { integerFromText } from '../../validation/query-transforms.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const TEXT_RULES = { minLength: 1, maxLength: 1024 };
const RFC3339_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const RFC3339_RULE = { message: '$property must be an RFC 3339 date-time, such as 2026-11-28T10:20:30Z' };

/** The query string of `GET /audit-events`: a record's history, an actor's, or everything, oldest first. */
export class ListAuditEventsQueryDto {
  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: 1024,
    description:
      'Only the events of this resource, as its path names it (`plants`); an unknown one is refused',
    example: 'plants',
  })
  @IsText(TEXT_RULES)
  @IsOptionalNotNull()
  readonly resource?: string;

  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: 1024,
    description: 'Only the events of the record with this id (with `resource`)',
    example: '10',
  })
  @IsText(TEXT_RULES)
  @IsOptionalNotNull()
  readonly id?: string;

  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: 1024,
    description: 'Only the events of this actor (`token:ci`, `jwt:client-42`)',
    example: 'jwt:client-42',
  })
  @IsText(TEXT_RULES)
  @IsOptionalNotNull()
  readonly actor?: string;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    maxLength: 64,
    description: 'Only the events at or after this time (RFC 3339)',
    example: '2026-11-28T00:00:00Z',
  })
  @IsISO8601({ strict: true, strictSeparator: true }, RFC3339_RULE)
  @Matches(RFC3339_DATE_TIME, RFC3339_RULE)
  @IsOptionalNotNull()
  readonly since?: string;

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
    description: 'Return the events after this one: the last id of the previous page (see the Link header)',
  })
  @Transform(integerFromText)
  @IsInt64()
  @IsOptionalNotNull()
  readonly after?: Int64;
}
