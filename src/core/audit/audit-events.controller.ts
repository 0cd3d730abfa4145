import { Controller, Get, HttpStatus, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';

import { RequireScopes } from '../auth/scopes.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { ApiResource } from '../openapi/api-resource.decorator.js';
import { AuditEventsService } from './audit-events.service.js';
import { AuditEventDto } from './dto/audit-event.dto.js';
import { ListAuditEventsQueryDto, MAX_PAGE_SIZE } from './dto/list-audit-events.query.js';

/** Read only: no route changes or deletes an event. */
@ApiResource('audit-events', 'Who changed what, and when')
@ApiExtraModels(AuditEventDto)
@Controller('audit-events')
@RequireScopes('audit:read')
export class AuditEventsController {
  constructor(private readonly events: AuditEventsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary: 'List audit events',
    description:
      'Returns the changes the audit trail keeps, oldest first, a page at a time: a record’s history with ' +
      '`resource` and `id`, an actor’s with `actor`, those since a time with `since`. When there are more, ' +
      'the Link header gives the next page (rel="next"). Needs the audit:read scope.',
  })
  @ApiOkResponse({
    schema: { type: 'array', maxItems: MAX_PAGE_SIZE, items: { $ref: getSchemaPath(AuditEventDto) } },
    description: 'A page of audit events',
    headers: {
      Link: {
        description:
          'The next page, when there is one: `</audit-events?resource=plants&id=10&after=42>; rel="next"`',
        required: false,
        schema: { type: 'string', maxLength: 8192, pattern: '^</audit-events\\?[^>]*>; rel="next"$' },
      },
    },
  })
  @ApiErrorResponses(HttpStatus.BAD_REQUEST)
  async list(
    @Query() query: ListAuditEventsQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AuditEventDto[]> {
    const page = await this.events.list(query);
    if (page.nextAfter !== undefined) {
      response.setHeader('Link', `<${nextPageUrl(query, page.nextAfter)}>; rel="next"`);
    }
    return page.events.map((event) => AuditEventDto.from(event));
  }
}

/** The next page's address, relative to this service: the same query, after the last event. */
function nextPageUrl(query: ListAuditEventsQueryDto, after: string): string {
  const parameters = new URLSearchParams();
  for (const name of ['resource', 'id', 'actor', 'since', 'limit'] as const) {
    if (query[name] !== undefined) {
      parameters.set(name, String(query[name]));
    }
  }
  parameters.set('after', after);
  return `/audit-events?${parameters.toString()}`;
}
