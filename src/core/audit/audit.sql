-- The statements the audit trail sends to PostgreSQL, recorded by test/audit-sql-record.e2e-spec.ts: do not edit.
-- UPDATE_SQL_SNAPSHOTS=1 npm run test:e2e -- test/audit-sql-record.e2e-spec.ts rewrites this file.

-- GET /audit-events?resource=plants&id=10&limit=2
SELECT "event"."id" AS "event_id", "event"."at" AS "event_at", "event"."actor" AS "event_actor", "event"."actor_issuer" AS "event_actor_issuer", "event"."action" AS "event_action", "event"."resource" AS "event_resource", "event"."resource_id" AS "event_resource_id", "event"."changes" AS "event_changes", "event"."request_id" AS "event_request_id", "event"."trace_id" AS "event_trace_id" FROM "audit_events" "event" WHERE "event"."resource" = $1 AND "event"."resource_id" = $2 ORDER BY "event"."id" ASC LIMIT 3;

-- GET /audit-events?actor=token:ci&since=2026-01-01T00:00:00Z&after=42
SELECT "event"."id" AS "event_id", "event"."at" AS "event_at", "event"."actor" AS "event_actor", "event"."actor_issuer" AS "event_actor_issuer", "event"."action" AS "event_action", "event"."resource" AS "event_resource", "event"."resource_id" AS "event_resource_id", "event"."changes" AS "event_changes", "event"."request_id" AS "event_request_id", "event"."trace_id" AS "event_trace_id" FROM "audit_events" "event" WHERE "event"."actor" = $1 AND "event"."at" >= $2 AND ("event"."id") > ($3) ORDER BY "event"."id" ASC LIMIT 21;

-- AuditRetention: a batch of events past AUDIT_RETENTION_DAYS
START TRANSACTION;
SELECT pg_try_advisory_xact_lock($1) AS locked;
SET LOCAL plant_store.audit_prune = 'on';
DELETE FROM "audit_events" WHERE "id" IN (SELECT "expired"."id" AS "expired_id" FROM "audit_events" "expired" WHERE "expired"."at" < now() - make_interval(days => $1) ORDER BY "expired_id" ASC LIMIT 1000);
COMMIT;

-- AuditRetention: a batch of records soft-deleted past SOFT_DELETE_RETENTION_DAYS, and their events
START TRANSACTION;
SELECT pg_try_advisory_xact_lock($1) AS locked;
DELETE FROM "fixture_notes" WHERE ("id") IN (SELECT "expired"."id" AS "expired_id" FROM "fixture_notes" "expired" WHERE "expired"."deleted_at" < now() - make_interval(days => $1) LIMIT 1000) RETURNING *;
INSERT INTO "audit_events"("id", "at", "actor", "actor_issuer", "action", "resource", "resource_id", "changes", "request_id", "trace_id") VALUES (DEFAULT, DEFAULT, $1, $2, $3, $4, $5, $6, $7, $8);
COMMIT;
