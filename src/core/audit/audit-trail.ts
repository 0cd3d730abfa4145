import { isDeepStrictEqual } from 'node:util';

import { isSpanContextValid, trace, TraceFlags } from '@opentelemetry/api';
import { CLS_ID } from 'nestjs-cls';
import type {
  EntityManager,
  EntityMetadata,
  EntityTarget,
  ObjectLiteral,
  QueryDeepPartialEntity,
} from 'typeorm';

import { currentRequest } from '../logging/request-context.js';
import { AuditEvent, type AuditAction } from './audit-event.entity.js';
import { auditedResourceOf, sensitivePropertiesOf } from './audited.decorator.js';

/** Who makes a change: the request's principal (`token:<name>`, `jwt:<sub>` and its issuer), its id and trace. */
export interface AuditCaller {
  readonly actor: string;
  readonly actorIssuer?: string;
  readonly requestId?: string;
  readonly traceId?: string;
}

type ColumnMetadata = EntityMetadata['columns'][number];

/** One change of one record of an `@Audited()` entity, for `recordAudit`. */
export interface AuditChange<E extends ObjectLiteral = ObjectLiteral> {
  readonly action: AuditAction;
  readonly target: EntityTarget<E>;
  /** The record as it was: an update's, a delete's. */
  readonly before?: E;
  /** The record as it is now: a create's, an update's, a restore's. */
  readonly after?: E;
  /** Who made it: by default the request being served (`auditCaller()`). */
  readonly caller?: AuditCaller;
}

/** The service's own work, done for no request: what it does on its own, such as retention, is its. */
const SERVICE_ACTOR = 'service';

/**
 * Who is making a change now: the principal, id and trace of the request being served (a recorded
 * trace only). Taken when a request is admitted, so that work done later on its behalf, in a batch
 * of several requests' changes, is recorded as each request's own.
 */
export function auditCaller(serviceTask?: string): AuditCaller {
  const request = currentRequest();
  const span = trace.getActiveSpan()?.spanContext();
  const traced =
    span !== undefined && isSpanContextValid(span) && (span.traceFlags & TraceFlags.SAMPLED) !== 0;
  return {
    actor: request?.principal ?? (serviceTask ? `${SERVICE_ACTOR}:${serviceTask}` : SERVICE_ACTOR),
    ...(request?.issuer === undefined ? {} : { actorIssuer: request.issuer }),
    ...(request?.[CLS_ID] === undefined ? {} : { requestId: request[CLS_ID] }),
    ...(traced ? { traceId: span.traceId } : {}),
  };
}

/**
 * Records the changes of `@Audited()` entities in the caller's transaction, all in one insert, so that
 * each event exists if and only if its change commits; changes of other entities are left out.
 */
export async function recordAudit(manager: EntityManager, changes: readonly AuditChange[]): Promise<void> {
  const events = changes.flatMap((change) => {
    const event = auditEventOf(manager, change);
    return event ? [event] : [];
  });
  if (events.length > 0) {
    await manager
      .createQueryBuilder()
      .insert()
      .into(AuditEvent)
      // TypeORM's deep-partial type does not take a `jsonb` column's object as it is.
      .values(events as QueryDeepPartialEntity<AuditEvent>[])
      .updateEntity(false)
      .execute();
  }
}

function auditEventOf(
  manager: EntityManager,
  { action, target, before, after, caller = auditCaller() }: AuditChange,
): Partial<AuditEvent> | undefined {
  const metadata = manager.connection.getMetadata(target);
  const resource = auditedResourceOf(metadata.target);
  const record = after ?? before;
  if (resource === undefined || record === undefined) {
    return undefined;
  }
  return {
    actor: caller.actor,
    actorIssuer: caller.actorIssuer ?? null,
    action,
    resource,
    resourceId: metadata.primaryColumns.map((column) => String(column.getEntityValue(record))).join(','),
    changes:
      action === 'update' ? changedFields(metadata, before ?? {}, after ?? {}) : fieldsOf(metadata, record),
    requestId: caller.requestId ?? null,
    traceId: caller.traceId ?? null,
  };
}

/** The record's own fields: not its keys, version or times, which say nothing a change chose. */
function recordedColumns(metadata: EntityMetadata): ColumnMetadata[] {
  return metadata.columns.filter(
    (column) =>
      !column.isPrimary &&
      !column.isVersion &&
      !column.isCreateDate &&
      !column.isUpdateDate &&
      !column.isDeleteDate &&
      !column.isVirtual,
  );
}

const REDACTED = { redacted: true } as const;

function fieldsOf(metadata: EntityMetadata, record: ObjectLiteral): Record<string, unknown> {
  const sensitive = sensitivePropertiesOf(metadata.target);
  return Object.fromEntries(
    recordedColumns(metadata).map((column) => [
      column.propertyPath,
      sensitive.has(column.propertyName) ? REDACTED : jsonValue(column.getEntityValue(record)),
    ]),
  );
}

function changedFields(metadata: EntityMetadata, before: ObjectLiteral, after: ObjectLiteral) {
  const sensitive = sensitivePropertiesOf(metadata.target);
  const changes: Record<string, unknown> = {};
  for (const column of recordedColumns(metadata)) {
    const from = jsonValue(column.getEntityValue(before));
    const to = jsonValue(column.getEntityValue(after));
    if (!isDeepStrictEqual(from, to)) {
      changes[column.propertyPath] = sensitive.has(column.propertyName) ? REDACTED : { from, to };
    }
  }
  return changes;
}

/** As JSON holds it: a time as RFC 3339, an int64 as its digits; a field left out as `null`. */
function jsonValue(value: unknown): unknown {
  if (value === undefined) {
    return null;
  }
  if (value instanceof Date) {
    return value.toISOString();
  }
  return typeof value === 'bigint' ? value.toString() : value;
}
