import { ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';

/** One indicator's report, as `@nestjs/terminus` writes it. */
@ApiSchema({ name: 'HealthIndicator', description: 'What one check found' })
export class HealthIndicatorDto {
  @ApiProperty({ type: 'string', enum: ['up'], description: 'The dependency answered' })
  readonly status!: 'up';

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    description: 'How long the check took, in milliseconds',
  })
  readonly responseTime?: number;
}

const INDICATORS = {
  type: 'object',
  additionalProperties: { $ref: getSchemaPath(HealthIndicatorDto) },
} as const;

/**
 * A passing probe's body, as `@nestjs/terminus` writes it. A failing one
 * never has this shape: it answers 503 with the `Error` body.
 */
@ApiSchema({ name: 'HealthCheck', description: 'A passing health check: each indicator checked, and up' })
export class HealthCheckDto {
  @ApiProperty({ type: 'string', enum: ['ok'], description: 'Every check passed' })
  readonly status!: 'ok';

  @ApiProperty({ ...INDICATORS, description: 'The indicators that are up, by name (`database`)' })
  readonly info!: Record<string, HealthIndicatorDto>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(HealthIndicatorDto) },
    maxProperties: 0,
    description: 'Empty: no indicator failed',
  })
  readonly error!: Record<string, never>;

  @ApiProperty({ ...INDICATORS, description: 'Every indicator checked, by name' })
  readonly details!: Record<string, HealthIndicatorDto>;
}
