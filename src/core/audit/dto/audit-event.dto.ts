import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

import { type Int64, int64FromString } from '../../common/int64.js';
import { AUDIT_ACTIONS, type AuditAction, type AuditEvent } from '../audit-event.entity.js';

const TEXT = { type: 'string', minLength: 1, maxLength: 16_384 } as const;

@ApiSchema({ name: 'AuditEvent', description: 'One change to one record, as the audit trail keeps it' })
export class AuditEventDto {
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    description: 'The event’s number: events are listed in its order',
    example: 17,
  })
  readonly id!: Int64;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    maxLength: 30,
    description: 'The time of the change’s transaction (RFC 3339)',
    example: '2026-11-28T10:20:30.123Z',
  })
  readonly at!: string;

  @ApiProperty({
    ...TEXT,
    description:
      'Who made the change: `token:<name>` for a static token (a label when it has no name), `jwt:<sub>` for a ' +
      'JWT, `service:<task>` for the service’s own work (retention)',
    example: 'jwt:client-42',
  })
  readonly actor!: string;

  @ApiPropertyOptional({
    ...TEXT,
    description: 'The issuer of the JWT the actor’s subject belongs to',
    example: 'https://issuer.example',
  })
  readonly actorIssuer?: string;

  @ApiProperty({ type: 'string', enum: AUDIT_ACTIONS, description: 'What was done', example: 'update' })
  readonly action!: AuditAction;

  @ApiProperty({ ...TEXT, description: 'The resource, as its path names it', example: 'plants' })
  readonly resource!: string;

  @ApiProperty({ ...TEXT, description: 'The record’s id, as text', example: '10' })
  readonly resourceId!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'For an update, each changed field as `{"from": …, "to": …}`; for a create or a restore, the stored fields; ' +
      'for a delete, the fields as they were. A sensitive field is `{"redacted": true}`, never its value',
    example: { name: { from: 'Monstera deliciosa', to: 'Monstera adansonii' } },
  })
  readonly changes!: Record<string, unknown>;

  @ApiPropertyOptional({
    ...TEXT,
    description: 'The `X-Request-Id` of the request that made it',
    example: '0b9c…',
  })
  readonly requestId?: string;

  @ApiPropertyOptional({
    type: 'string',
    pattern: '^[0-9a-f]{32}$',
    minLength: 32,
    maxLength: 32,
    description: 'The trace the request was recorded in, when it was',
    example: '4bf92f3577b34da6a3ce929d0e0e4736',
  })
  readonly traceId?: string;

  static from(event: AuditEvent): AuditEventDto {
    return {
      id: int64FromString(event.id),
      at: event.at.toISOString(),
      actor: event.actor,
      ...(event.actorIssuer === null ? {} : { actorIssuer: event.actorIssuer }),
      action: event.action,
      resource: event.resource,
      resourceId: event.resourceId,
      changes: event.changes,
      ...(event.requestId === null ? {} : { requestId: event.requestId }),
      ...(event.traceId === null ? {} : { traceId: event.traceId }),
    };
  }
}
