-- The statements the webhook repositories send to PostgreSQL, recorded by test/webhook-sql-record.e2e-spec.ts: do not edit.
-- UPDATE_SQL_SNAPSHOTS=1 npm run test:e2e -- test/webhook-sql-record.e2e-spec.ts rewrites this file.

-- WebhookOutbox.enqueueAll(): a row for each event and subscriber, in the caller’s transaction
INSERT INTO "webhook_deliveries"("event_id", "event_type", "subscriber", "payload", "status", "attempts", "next_attempt_at", "last_error", "created_at", "delivered_at", "traceparent", "dead_at", "unsubscribed_at") VALUES ($1, $2, $3, $4, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, $5, DEFAULT, DEFAULT), ($6, $7, $8, $9, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, $10, DEFAULT, DEFAULT);

-- WebhookDispatcher: a subscriber’s claim
UPDATE "webhook_deliveries" SET "attempts" = "attempts" + 1, "next_attempt_at" = now() + make_interval(secs => $1) WHERE "id" IN (SELECT "due"."id" AS "due_id" FROM "webhook_deliveries" "due" WHERE "due"."status" = 'pending' AND "due"."subscriber" = $2 AND "due"."next_attempt_at" <= now() ORDER BY "due"."next_attempt_at" ASC, "due_id" ASC LIMIT 16 FOR UPDATE SKIP LOCKED) RETURNING "id", "event_id", "event_type", "subscriber", "payload", "attempts", "traceparent";

-- WebhookDispatcher: a delivery taken
UPDATE "webhook_deliveries" SET "status" = $1, "delivered_at" = now(), "last_error" = $2 WHERE "id" = $3;

-- WebhookDispatcher: a delivery failed, tried again later
UPDATE "webhook_deliveries" SET "next_attempt_at" = now() + make_interval(secs => $1), "last_error" = $2 WHERE "id" = $3;

-- WebhookDispatcher: a delivery failed its last attempt
UPDATE "webhook_deliveries" SET "status" = $1, "dead_at" = now(), "last_error" = $2 WHERE "id" = $3;

-- WebhookOutboxMetrics: the backlog by subscriber
SELECT "delivery"."subscriber" AS "subscriber", "delivery"."status" AS "status", count(*)::float8 AS "count", extract(epoch FROM now() - min("delivery"."created_at"))::float8 AS "oldestAgeSeconds" FROM "webhook_deliveries" "delivery" WHERE "delivery"."status" = 'pending' OR "delivery"."status" = 'dead' OR "delivery"."status" = 'unsubscribed' GROUP BY "delivery"."subscriber", "delivery"."status";

-- WebhookOutboxCleanup: a batch of each state past the retention
DELETE FROM "webhook_deliveries" WHERE "id" IN (SELECT "due"."id" AS "due_id" FROM "webhook_deliveries" "due" WHERE "due"."status" = 'delivered' AND "due"."delivered_at" < now() - make_interval(secs => $1) LIMIT 1000 FOR UPDATE SKIP LOCKED);
DELETE FROM "webhook_deliveries" WHERE "id" IN (SELECT "due"."id" AS "due_id" FROM "webhook_deliveries" "due" WHERE "due"."status" = 'dead' AND "due"."dead_at" < now() - make_interval(secs => $1) LIMIT 1000 FOR UPDATE SKIP LOCKED);
DELETE FROM "webhook_deliveries" WHERE "id" IN (SELECT "due"."id" AS "due_id" FROM "webhook_deliveries" "due" WHERE "due"."status" = 'unsubscribed' AND "due"."unsubscribed_at" < now() - make_interval(secs => $1) LIMIT 1000 FOR UPDATE SKIP LOCKED);

-- WebhookSubscriberRegistry: the leases renewed
INSERT INTO "webhook_subscribers" AS "lease"("subscriber", "expires_at") VALUES ($1, now() + make_interval(secs => $2)), ($3, now() + make_interval(secs => $2)) ON CONFLICT ( "subscriber" ) DO UPDATE SET "expires_at" = EXCLUDED."expires_at" WHERE "lease"."expires_at" < EXCLUDED.expires_at;

-- WebhookSubscriberRegistry: the leases run out forgotten
DELETE FROM "webhook_subscribers" WHERE "expires_at" <= now();

-- WebhookSubscriberRegistry: the subscribers no lease covers
SELECT DISTINCT "delivery"."subscriber" AS "subscriber" FROM "webhook_deliveries" "delivery" WHERE "delivery"."status" = 'pending' AND NOT EXISTS (SELECT 1 FROM "webhook_subscribers" "lease" WHERE "lease"."subscriber" = "delivery"."subscriber" AND "lease"."expires_at" > now());

-- WebhookSubscriberRegistry: those still leased
SELECT "WebhookSubscriberLease"."subscriber" AS "WebhookSubscriberLease_subscriber" FROM "webhook_subscribers" "WebhookSubscriberLease" WHERE (("WebhookSubscriberLease"."subscriber" IN ($1, $2)) AND ("WebhookSubscriberLease"."expires_at" > now()));

-- WebhookSubscriberRegistry: a batch of pending rows moved to their subscriber’s key
UPDATE "webhook_deliveries" SET "subscriber" = $1 WHERE "id" IN (SELECT "due"."id" AS "due_id" FROM "webhook_deliveries" "due" WHERE "due"."status" = 'pending' AND "due"."subscriber" = $2 LIMIT 1000 FOR UPDATE SKIP LOCKED);

-- WebhookSubscriberRegistry: a batch of pending rows of a subscriber leased nowhere marked unsubscribed
UPDATE "webhook_deliveries" SET "status" = $1, "unsubscribed_at" = now(), "subscriber" = $2 WHERE "id" IN (SELECT "due"."id" AS "due_id" FROM "webhook_deliveries" "due" WHERE "due"."status" = 'pending' AND "due"."subscriber" = $3 AND NOT EXISTS (SELECT 1 FROM "webhook_subscribers" "lease" WHERE "lease"."subscriber" = $4 AND "lease"."expires_at" > now()) LIMIT 1000 FOR UPDATE SKIP LOCKED);

-- webhooks:requeue: the database’s clock
SELECT now()::text AS "now" FROM (SELECT 1 AS dummy_column) "dummy_table";

-- webhooks:requeue --all: a batch
UPDATE "webhook_deliveries" SET "status" = $1, "attempts" = $2, "next_attempt_at" = now(), "dead_at" = $3, "unsubscribed_at" = $4 WHERE "id" IN (SELECT "due"."id" AS "due_id" FROM "webhook_deliveries" "due" WHERE "due"."status" = 'dead' AND coalesce("due"."dead_at", "due"."unsubscribed_at") <= CAST($5 AS timestamptz) LIMIT 1000 FOR UPDATE SKIP LOCKED) RETURNING "event_id";

-- webhooks:requeue --id: a batch
UPDATE "webhook_deliveries" SET "status" = $1, "attempts" = $2, "next_attempt_at" = now(), "dead_at" = $3, "unsubscribed_at" = $4 WHERE "id" IN (SELECT "due"."id" AS "due_id" FROM "webhook_deliveries" "due" WHERE "due"."status" = 'dead' AND coalesce("due"."dead_at", "due"."unsubscribed_at") <= CAST($5 AS timestamptz) AND "due"."event_id" = ANY ($6) LIMIT 1000 FOR UPDATE SKIP LOCKED) RETURNING "event_id";

-- webhooks:requeue --unsubscribed: a batch
UPDATE "webhook_deliveries" SET "status" = $1, "attempts" = $2, "next_attempt_at" = now(), "dead_at" = $3, "unsubscribed_at" = $4 WHERE "id" IN (SELECT "due"."id" AS "due_id" FROM "webhook_deliveries" "due" WHERE "due"."status" = 'unsubscribed' AND coalesce("due"."dead_at", "due"."unsubscribed_at") <= CAST($5 AS timestamptz) AND "due"."subscriber" = ANY ($6) LIMIT 1000 FOR UPDATE SKIP LOCKED) RETURNING "event_id";
