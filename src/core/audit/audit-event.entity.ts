import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const AUDIT_ACTIONS = ['create', 'update', 'delete', 'restore'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** A field's change in an update; a sensitive field's, in any action, says only that it was given. */
export type AuditFieldChange = { readonly from: unknown; readonly to: unknown } | { readonly redacted: true };

/**
 * One change to one record, written in the change's own transaction: it exists if and only if the
 * change committed. Never updated; deleted only by retention (`AUDIT_RETENTION_DAYS`).
 */
@Entity({ name: 'audit_events' })
// A record's history, and an actor's, oldest first; since a time, and what retention prunes.
@Index('audit_events_resource_id', ['resource', 'resourceId', 'id'])
@Index('audit_events_actor_id', ['actor', 'id'])
@Index('audit_events_at', ['at'])
@Check('audit_events_action', `action IN ('create', 'update', 'delete', 'restore')`)
export class AuditEvent {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', primaryKeyConstraintName: 'audit_events_pkey' })
  id!: string;

  /** The change's transaction's time. */
  @Column({ type: 'timestamptz', default: () => 'now()' })
  at!: Date;

  /** The principal's subject: `token:<name>` or `jwt:<sub>`; `service:<task>` for the service's own. */
  @Column({ type: 'text' })
  actor!: string;

  /** A JWT's issuer, which its subject belongs to. */
  @Column({ name: 'actor_issuer', type: 'text', nullable: true })
  actorIssuer!: string | null;

  @Column({ type: 'varchar', length: 16 })
  action!: AuditAction;

  @Column({ type: 'text' })
  resource!: string;

  @Column({ name: 'resource_id', type: 'text' })
  resourceId!: string;

  /** An update's changed fields, `{ from, to }` each; a create's stored fields, a delete's as they were. */
  @Column({ type: 'jsonb' })
  changes!: Record<string, unknown>;

  /** The request's `X-Request-Id`. */
  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  @Column({ name: 'trace_id', type: 'text', nullable: true })
  traceId!: string | null;
}
