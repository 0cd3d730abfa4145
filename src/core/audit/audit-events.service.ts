import { BadRequestException, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { int64ToString } from '../common/int64.js';
import { keysetPage } from '../database/keyset-page.js';
import { ReadReplicas } from '../database/read-replicas.js';
import { AuditEvent } from './audit-event.entity.js';
import { auditedResourceOf } from './audited.decorator.js';
import { DEFAULT_PAGE_SIZE, type ListAuditEventsQueryDto } from './dto/list-audit-events.query.js';

export interface AuditEventPage {
  readonly events: AuditEvent[];
  /** The `after` of the next page, when there is one. */
  readonly nextAfter?: string;
}

@Injectable()
export class AuditEventsService {
  /** The resources whose entities are `@Audited()`, as the application registered them. */
  private readonly resources: ReadonlySet<string>;

  constructor(
    dataSource: DataSource,
    private readonly replicas: ReadReplicas,
  ) {
    this.resources = new Set(
      dataSource.entityMetadatas.flatMap((metadata) => auditedResourceOf(metadata.target) ?? []),
    );
  }

  /** Oldest first, in the order the events were written, a keyset page at a time. */
  async list(query: ListAuditEventsQueryDto): Promise<AuditEventPage> {
    this.checkFilters(query);
    const page = await this.replicas.read((manager) => {
      const events = manager.createQueryBuilder(AuditEvent, 'event');
      if (query.resource !== undefined) {
        events.andWhere('event.resource = :resource', { resource: query.resource });
      }
      if (query.id !== undefined) {
        events.andWhere('event.resourceId = :resourceId', { resourceId: query.id });
      }
      if (query.actor !== undefined) {
        events.andWhere('event.actor = :actor', { actor: query.actor });
      }
      if (query.since !== undefined) {
        events.andWhere('event.at >= :since', { since: new Date(query.since) });
      }
      return keysetPage(events, {
        orderBy: ['id'],
        after: query.after === undefined ? undefined : [int64ToString(query.after)],
        limit: query.limit ?? DEFAULT_PAGE_SIZE,
      });
    });
    return { events: page.items, nextAfter: page.next?.[0] as string | undefined };
  }

  private checkFilters({ resource, id }: ListAuditEventsQueryDto): void {
    if (resource !== undefined && !this.resources.has(resource)) {
      throw new BadRequestException(
        `resource ${resource} is not one the audit trail keeps: ${[...this.resources].sort().join(', ')}`,
      );
    }
    if (id !== undefined && resource === undefined) {
      throw new BadRequestException('id needs resource: an id is a record’s within its resource');
    }
  }
}
