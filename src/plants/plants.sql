-- The statements each request sends to PostgreSQL, recorded by test/sql-record.e2e-spec.ts: do not edit.
-- UPDATE_SQL_SNAPSHOTS=1 npm run test:e2e -- test/sql-record.e2e-spec.ts rewrites this file.

-- POST /plants
START TRANSACTION;
INSERT INTO plants (id, name, tag) SELECT * FROM unnest($1::bigint[], $2::varchar[], $3::varchar[]) ON CONFLICT (id) DO NOTHING RETURNING id;
INSERT INTO "webhook_deliveries"("event_id", "event_type", "subscriber", "payload", "status", "attempts", "next_attempt_at", "last_error", "created_at", "delivered_at", "traceparent", "dead_at", "unsubscribed_at") VALUES ($1, $2, $3, $4, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, $5, DEFAULT, DEFAULT);
COMMIT;

-- POST /plants: the same plant again
START TRANSACTION;
INSERT INTO plants (id, name, tag) SELECT * FROM unnest($1::bigint[], $2::varchar[], $3::varchar[]) ON CONFLICT (id) DO NOTHING RETURNING id;
SELECT "Plant"."id" AS "Plant_id", "Plant"."name" AS "Plant_name", "Plant"."tag" AS "Plant_tag" FROM "plants" "Plant" WHERE (("Plant"."id" IN ($1)));
COMMIT;

-- GET /plants/{id}
SELECT id, name, tag, version FROM plants WHERE id = ANY ($1::bigint[]);

-- GET /plants?limit=20
SELECT plant.id, plant.name, plant.tag, start.page FROM unnest($1::bigint[], $2::varchar[]) WITH ORDINALITY AS start (after, tag, page) CROSS JOIN LATERAL ( SELECT plant.id, plant.name, plant.tag FROM plants plant ORDER BY plant.id LIMIT $3 ) AS plant ORDER BY start.page, plant.id;

-- GET /plants?limit=20&after=0&tag=pteridophyte
SELECT plant.id, plant.name, plant.tag, start.page FROM unnest($1::bigint[], $2::varchar[]) WITH ORDINALITY AS start (after, tag, page) CROSS JOIN LATERAL ( SELECT plant.id, plant.name, plant.tag FROM plants plant WHERE plant.tag = start.tag AND plant.id > start.after ORDER BY plant.id LIMIT $3 ) AS plant ORDER BY start.page, plant.id;

-- PATCH /plants/{id} with If-Match
START TRANSACTION;
WITH input AS ( SELECT * FROM unnest($1::bigint[], $2::text[], $3::boolean[], $4::varchar[], $5::boolean[], $6::varchar[]) WITH ORDINALITY AS input (id, if_versions, set_name, name, set_tag, tag, position) ), changed AS ( UPDATE plants AS plant SET name = CASE WHEN input.set_name THEN input.name ELSE plant.name END, tag = CASE WHEN input.set_tag THEN input.tag ELSE plant.tag END, version = plant.version + 1 FROM input WHERE plant.id = input.id AND (input.if_versions IS NULL OR plant.version = ANY (input.if_versions::integer[])) RETURNING plant.id, plant.name, plant.tag, plant.version ) SELECT input.id, changed.name, changed.tag, changed.version, CASE WHEN changed.id IS NULL THEN EXISTS (SELECT FROM plants WHERE plants.id = input.id) END AS found FROM input LEFT JOIN changed ON changed.id = input.id ORDER BY input.position;
INSERT INTO "webhook_deliveries"("event_id", "event_type", "subscriber", "payload", "status", "attempts", "next_attempt_at", "last_error", "created_at", "delivered_at", "traceparent", "dead_at", "unsubscribed_at") VALUES ($1, $2, $3, $4, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, $5, DEFAULT, DEFAULT);
COMMIT;

-- PATCH /plants/{id}: nothing to change
SELECT id, name, tag, version FROM plants WHERE id = ANY ($1::bigint[]);

-- DELETE /plants/{id} with a stale If-Match
START TRANSACTION;
DELETE FROM "plants" WHERE "id" = $1 AND "version" IN ($2) RETURNING *;
SELECT 1 AS "row_exists" FROM (SELECT 1 AS dummy_column) "dummy_table" WHERE EXISTS (SELECT 1 FROM "plants" "Plant" WHERE (("Plant"."id" = $1))) LIMIT 1;
ROLLBACK;

-- DELETE /plants/{id}
START TRANSACTION;
DELETE FROM "plants" WHERE "id" = $1 RETURNING *;
INSERT INTO "webhook_deliveries"("event_id", "event_type", "subscriber", "payload", "status", "attempts", "next_attempt_at", "last_error", "created_at", "delivered_at", "traceparent", "dead_at", "unsubscribed_at") VALUES ($1, $2, $3, $4, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, $5, DEFAULT, DEFAULT);
COMMIT;
