-- The statements each request sends to PostgreSQL, recorded by test/sql-record.e2e-spec.ts: do not edit.
-- UPDATE_SQL_SNAPSHOTS=1 npm run test:e2e -- test/sql-record.e2e-spec.ts rewrites this file.

-- POST /plants
START TRANSACTION;
INSERT INTO "plants"("id", "name", "tag", "created_at", "updated_at", "version") VALUES ($1, $2, $3, DEFAULT, DEFAULT, 1) ON CONFLICT DO NOTHING RETURNING "id";
INSERT INTO "webhook_deliveries"("event_id", "event_type", "subscriber", "payload", "status", "attempts", "next_attempt_at", "last_error", "created_at", "delivered_at", "traceparent", "dead_at", "unsubscribed_at") VALUES ($1, $2, $3, $4, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, $5, DEFAULT, DEFAULT);
INSERT INTO "audit_events"("id", "at", "actor", "actor_issuer", "action", "resource", "resource_id", "changes", "request_id", "trace_id") VALUES (DEFAULT, DEFAULT, $1, $2, $3, $4, $5, $6, $7, $8);
COMMIT;

-- POST /plants: the same plant again
START TRANSACTION;
INSERT INTO "plants"("id", "name", "tag", "created_at", "updated_at", "version") VALUES ($1, $2, $3, DEFAULT, DEFAULT, 1) ON CONFLICT DO NOTHING RETURNING "id";
SELECT "Plant"."id" AS "Plant_id", "Plant"."name" AS "Plant_name", "Plant"."tag" AS "Plant_tag", "Plant"."created_at" AS "Plant_created_at", "Plant"."updated_at" AS "Plant_updated_at", "Plant"."version" AS "Plant_version" FROM "plants" "Plant" WHERE (("Plant"."id" IN ($1)));
COMMIT;

-- GET /plants/{id}
SELECT "Plant"."id" AS "Plant_id", "Plant"."name" AS "Plant_name", "Plant"."tag" AS "Plant_tag", "Plant"."created_at" AS "Plant_created_at", "Plant"."updated_at" AS "Plant_updated_at", "Plant"."version" AS "Plant_version" FROM "plants" "Plant" WHERE (("Plant"."id" IN ($1)));

-- GET /plants?limit=20
SELECT "start"."page" AS "list_page", "rows".* FROM generate_series(1, $1::integer) AS "start"("page") CROSS JOIN LATERAL (SELECT "plant"."id" AS "id", "plant"."name" AS "name", "plant"."tag" AS "tag", "plant"."created_at" AS "created_at", "plant"."updated_at" AS "updated_at", "plant"."version" AS "version" FROM "plants" "plant" ORDER BY "plant"."id" ASC LIMIT 21) AS "rows" ORDER BY "start"."page", "rows"."id" ASC;

-- GET /plants?limit=20&after=0&tag=pteridophyte
SELECT "start"."page" AS "list_page", "rows".* FROM unnest($1::character varying[], $2::bigint[]) WITH ORDINALITY AS "start"("listFilter16", "listAfter0", "page") CROSS JOIN LATERAL (SELECT "plant"."id" AS "id", "plant"."name" AS "name", "plant"."tag" AS "tag", "plant"."created_at" AS "created_at", "plant"."updated_at" AS "updated_at", "plant"."version" AS "version" FROM "plants" "plant" WHERE "plant"."tag" = "start"."listFilter16" AND "plant"."id" > "start"."listAfter0" ORDER BY "plant"."id" ASC LIMIT 21) AS "rows" ORDER BY "start"."page", "rows"."id" ASC;

-- GET /plants?sort=-name&name[prefix]=F&tag[ne]=aroid
SELECT "start"."page" AS "list_page", "rows".* FROM unnest($1::text[], $2::character varying[], $3::character varying[], $4::character varying[]) WITH ORDINALITY AS "start"("listFilter14", "listFilter14From", "listFilter14Below", "listFilter17", "page") CROSS JOIN LATERAL (SELECT "plant"."id" AS "id", "plant"."name" AS "name", "plant"."tag" AS "tag", "plant"."created_at" AS "created_at", "plant"."updated_at" AS "updated_at", "plant"."version" AS "version" FROM "plants" "plant" WHERE "plant"."name" LIKE "start"."listFilter14" AND "plant"."name" >= "start"."listFilter14From" AND "plant"."name" < "start"."listFilter14Below" AND "plant"."tag" IS DISTINCT FROM "start"."listFilter17" ORDER BY "plant"."name" DESC, "plant"."id" DESC LIMIT 21) AS "rows" ORDER BY "start"."page", "rows"."name" DESC, "rows"."id" DESC;

-- GET /plants?after=0&name[contains]=ern with Prefer: count=exact
SELECT "plant"."id" AS "plant_id", "plant"."name" AS "plant_name", "plant"."tag" AS "plant_tag", "plant"."created_at" AS "plant_created_at", "plant"."updated_at" AS "plant_updated_at", "plant"."version" AS "plant_version" FROM "plants" "plant" WHERE "plant"."name" COLLATE "default" ILIKE $1 AND "plant"."id" > $2 ORDER BY "plant"."id" ASC LIMIT 21;
START TRANSACTION;
SELECT set_config('statement_timeout', $1, true);
SELECT COUNT(*) AS "total" FROM "plants" "plant" WHERE "plant"."name" COLLATE "default" ILIKE $1;
COMMIT;

-- GET /plants?sort=tag&tag[contains]=ter&cursor=… (its values, then the plants without a tag) with Prefer: count=estimated
SELECT "plant"."id" AS "plant_id", "plant"."name" AS "plant_name", "plant"."tag" AS "plant_tag", "plant"."created_at" AS "plant_created_at", "plant"."updated_at" AS "plant_updated_at", "plant"."version" AS "plant_version" FROM "plants" "plant" WHERE "plant"."tag" COLLATE "default" ILIKE $1 AND "plant"."tag" >= $2 AND ("plant"."tag" > $2 OR ("plant"."tag" = $2 AND "plant"."id" > $3)) ORDER BY "plant"."tag" ASC, "plant"."id" ASC LIMIT 21;
SELECT "plant"."id" AS "plant_id", "plant"."name" AS "plant_name", "plant"."tag" AS "plant_tag", "plant"."created_at" AS "plant_created_at", "plant"."updated_at" AS "plant_updated_at", "plant"."version" AS "plant_version" FROM "plants" "plant" WHERE "plant"."tag" COLLATE "default" ILIKE $1 AND "plant"."tag" IS NULL ORDER BY "plant"."tag" ASC, "plant"."id" ASC LIMIT 20;
EXPLAIN (FORMAT JSON) SELECT "plant"."id" AS "plant_id", "plant"."name" AS "plant_name", "plant"."tag" AS "plant_tag", "plant"."created_at" AS "plant_created_at", "plant"."updated_at" AS "plant_updated_at", "plant"."version" AS "plant_version" FROM "plants" "plant" WHERE "plant"."tag" COLLATE "default" ILIKE $1;

-- PATCH /plants/{id} with If-Match
START TRANSACTION;
SELECT "Plant"."id" AS "Plant_id", "Plant"."name" AS "Plant_name", "Plant"."tag" AS "Plant_tag", "Plant"."created_at" AS "Plant_created_at", "Plant"."updated_at" AS "Plant_updated_at", "Plant"."version" AS "Plant_version" FROM "plants" "Plant" WHERE (("Plant"."id" IN ($1))) ORDER BY "Plant"."id" ASC FOR UPDATE;
INSERT INTO "plants"("id", "name", "tag", "created_at", "updated_at", "version") VALUES ($1, $2, $3, DEFAULT, DEFAULT, $4) ON CONFLICT ( "id" ) DO UPDATE SET "id" = EXCLUDED."id", "name" = EXCLUDED."name", "tag" = EXCLUDED."tag", "version" = EXCLUDED."version", "updated_at" = DEFAULT RETURNING "created_at", "updated_at", "version";
INSERT INTO "webhook_deliveries"("event_id", "event_type", "subscriber", "payload", "status", "attempts", "next_attempt_at", "last_error", "created_at", "delivered_at", "traceparent", "dead_at", "unsubscribed_at") VALUES ($1, $2, $3, $4, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, $5, DEFAULT, DEFAULT);
INSERT INTO "audit_events"("id", "at", "actor", "actor_issuer", "action", "resource", "resource_id", "changes", "request_id", "trace_id") VALUES (DEFAULT, DEFAULT, $1, $2, $3, $4, $5, $6, $7, $8);
COMMIT;

-- PATCH /plants/{id}: nothing to change
START TRANSACTION;
SELECT "Plant"."id" AS "Plant_id", "Plant"."name" AS "Plant_name", "Plant"."tag" AS "Plant_tag", "Plant"."created_at" AS "Plant_created_at", "Plant"."updated_at" AS "Plant_updated_at", "Plant"."version" AS "Plant_version" FROM "plants" "Plant" WHERE (("Plant"."id" IN ($1))) ORDER BY "Plant"."id" ASC FOR UPDATE;
COMMIT;

-- DELETE /plants/{id} with a stale If-Match
START TRANSACTION;
SELECT "Plant"."id" AS "Plant_id", "Plant"."name" AS "Plant_name", "Plant"."tag" AS "Plant_tag", "Plant"."created_at" AS "Plant_created_at", "Plant"."updated_at" AS "Plant_updated_at", "Plant"."version" AS "Plant_version" FROM "plants" "Plant" WHERE (("Plant"."id" = $1)) LIMIT 1 FOR UPDATE;
ROLLBACK;

-- DELETE /plants/{id}
START TRANSACTION;
SELECT "Plant"."id" AS "Plant_id", "Plant"."name" AS "Plant_name", "Plant"."tag" AS "Plant_tag", "Plant"."created_at" AS "Plant_created_at", "Plant"."updated_at" AS "Plant_updated_at", "Plant"."version" AS "Plant_version" FROM "plants" "Plant" WHERE (("Plant"."id" = $1)) LIMIT 1 FOR UPDATE;
DELETE FROM "plants" WHERE "id" = $1;
INSERT INTO "audit_events"("id", "at", "actor", "actor_issuer", "action", "resource", "resource_id", "changes", "request_id", "trace_id") VALUES (DEFAULT, DEFAULT, $1, $2, $3, $4, $5, $6, $7, $8);
INSERT INTO "webhook_deliveries"("event_id", "event_type", "subscriber", "payload", "status", "attempts", "next_attempt_at", "last_error", "created_at", "delivered_at", "traceparent", "dead_at", "unsubscribed_at") VALUES ($1, $2, $3, $4, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, $5, DEFAULT, DEFAULT);
COMMIT;
