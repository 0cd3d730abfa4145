-- The statements of the fast paths, generated from the entities' TypeORM metadata: do not edit.
-- The test beside this file fails when it is stale; UPDATE_SQL_SNAPSHOTS=1 makes it rewrite it.

-- EntityReader(Plant) plants-by-ids-IZmtZ6Ya8p13MwLi
SELECT "id"::text AS "id", "name" AS "name", "tag" AS "tag", "version" AS "version"
FROM "plants"
WHERE "id" = ANY ($1::bigint[]);

-- EntityReader(Plant) plants-pages-ZttqnnhB18miH65g
SELECT p."id"::text AS "id", p."name" AS "name", p."tag" AS "tag", r.page_number::int4 AS "__page"
FROM unnest($1::int4[]) WITH ORDINALITY AS r (page_limit, page_number)
CROSS JOIN LATERAL (
  SELECT * FROM "plants" t
  ORDER BY t."id"
  LIMIT r.page_limit
) p
ORDER BY r.page_number, p."id";

-- EntityReader(Plant) plants-pages-after-hM2ASk1lm-JjgAip
SELECT p."id"::text AS "id", p."name" AS "name", p."tag" AS "tag", r.page_number::int4 AS "__page"
FROM unnest($1::bigint[], $2::int4[]) WITH ORDINALITY AS r (after, page_limit, page_number)
CROSS JOIN LATERAL (
  SELECT * FROM "plants" t
  WHERE t."id" > r.after
  ORDER BY t."id"
  LIMIT r.page_limit
) p
ORDER BY r.page_number, p."id";

-- EntityReader(Plant) plants-pages-tag-_JEj2yEw6t2h0SVH
SELECT p."id"::text AS "id", p."name" AS "name", p."tag" AS "tag", r.page_number::int4 AS "__page"
FROM unnest($1::character varying[], $2::int4[]) WITH ORDINALITY AS r (f0, page_limit, page_number)
CROSS JOIN LATERAL (
  SELECT * FROM "plants" t
  WHERE t."tag" = r.f0
  ORDER BY t."id"
  LIMIT r.page_limit
) p
ORDER BY r.page_number, p."id";

-- EntityReader(Plant) plants-pages-tag-after-PJ7R4njYWPMHSwFf
SELECT p."id"::text AS "id", p."name" AS "name", p."tag" AS "tag", r.page_number::int4 AS "__page"
FROM unnest($1::character varying[], $2::bigint[], $3::int4[]) WITH ORDINALITY AS r (f0, after, page_limit, page_number)
CROSS JOIN LATERAL (
  SELECT * FROM "plants" t
  WHERE t."tag" = r.f0 AND t."id" > r.after
  ORDER BY t."id"
  LIMIT r.page_limit
) p
ORDER BY r.page_number, p."id";

-- EntityWriter(Plant) plants-insert-batch-F0FZC8szY0ZOk_cl
INSERT INTO "plants" ("id", "name", "tag")
SELECT * FROM unnest($1::bigint[], $2::character varying[], $3::character varying[])
ON CONFLICT ("id") DO NOTHING
RETURNING "id"::text AS "key";

-- EntityWriter(Plant) plants-insert-batch-with-events-UAHpDgLj3H_02oo2
WITH inserted AS (
  INSERT INTO "plants" ("id", "name", "tag")
  SELECT * FROM unnest($1::bigint[], $2::character varying[], $3::character varying[])
  ON CONFLICT ("id") DO NOTHING
  RETURNING "id", "name", "tag"
),
events AS (
  INSERT INTO webhook_deliveries (event_id, event_type, subscriber, payload, traceparent)
  SELECT event.id, 'plant.created', subscriber.url, event.payload, event.traceparent
  FROM (
    SELECT gen_random_uuid() AS id, json_strip_nulls(json_build_object('id', "id", 'name', "name", 'tag', "tag"))::text AS payload,
      producer.producer_traceparent::text AS traceparent
    FROM inserted JOIN unnest($1::bigint[], $5::text[]) AS producer (producer_key, producer_traceparent) ON producer.producer_key = inserted."id"
  ) AS event
  CROSS JOIN unnest($4::text[]) AS subscriber (url)
)
SELECT "id"::text AS "key" FROM inserted;

-- EntityWriter(Plant) plants-select-stored-GkopbXtFFfG8_ysf
SELECT "id"::text AS "id", "name" AS "name", "tag" AS "tag"
FROM "plants"
WHERE "id" = ANY ($1::bigint[]);

-- EntityWriter(Plant) plants-update-batch-ubOE5GSkHMZ3Dlxf
WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::boolean[], $4::character varying[], $5::boolean[], $6::character varying[])
    WITH ORDINALITY AS input (key, if_versions, set_0, value_0, set_1, value_1, position)
),
changed AS (
  UPDATE "plants" AS t
  SET "name" = CASE WHEN input.set_0 THEN input.value_0 ELSE t."name" END,
      "tag" = CASE WHEN input.set_1 THEN input.value_1 ELSE t."tag" END,
      "version" = t."version" + 1
  FROM input
  WHERE t."id" = input.key
    AND (input.if_versions IS NULL OR t."version" = ANY (input.if_versions::integer[]))
  RETURNING t."id", t."name", t."tag", t."version"
)
SELECT changed."id"::text AS "id", changed."name" AS "name", changed."tag" AS "tag", changed."version" AS "version",
  CASE WHEN changed."id" IS NULL
    THEN EXISTS (SELECT FROM "plants" WHERE "id" = input.key) END AS "__found"
FROM input
LEFT JOIN changed ON changed."id" = input.key
ORDER BY input.position;

-- EntityWriter(Plant) plants-update-batch-with-events-IUZsONRmpQR4emTg
WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::boolean[], $4::character varying[], $5::boolean[], $6::character varying[])
    WITH ORDINALITY AS input (key, if_versions, set_0, value_0, set_1, value_1, position)
),
changed AS (
  UPDATE "plants" AS t
  SET "name" = CASE WHEN input.set_0 THEN input.value_0 ELSE t."name" END,
      "tag" = CASE WHEN input.set_1 THEN input.value_1 ELSE t."tag" END,
      "version" = t."version" + 1
  FROM input
  WHERE t."id" = input.key
    AND (input.if_versions IS NULL OR t."version" = ANY (input.if_versions::integer[]))
  RETURNING t."id", t."name", t."tag", t."version"
),
events AS (
  INSERT INTO webhook_deliveries (event_id, event_type, subscriber, payload, traceparent)
  SELECT event.id, 'plant.updated', subscriber.url, event.payload, event.traceparent
  FROM (
    SELECT gen_random_uuid() AS id, json_strip_nulls(json_build_object('id', "id", 'name', "name", 'tag', "tag"))::text AS payload,
      producer.producer_traceparent::text AS traceparent
    FROM changed JOIN unnest($1::bigint[], $8::text[]) AS producer (producer_key, producer_traceparent) ON producer.producer_key = changed."id"
  ) AS event
  CROSS JOIN unnest($7::text[]) AS subscriber (url)
)
SELECT changed."id"::text AS "id", changed."name" AS "name", changed."tag" AS "tag", changed."version" AS "version",
  CASE WHEN changed."id" IS NULL
    THEN EXISTS (SELECT FROM "plants" WHERE "id" = input.key) END AS "__found"
FROM input
LEFT JOIN changed ON changed."id" = input.key
ORDER BY input.position;

-- EntityWriter(Plant) plants-delete-hKdJsUBHEo9_Lpk-
WITH changed AS (
  DELETE FROM "plants"
  WHERE "id" = $1::bigint
    AND ($2::integer[] IS NULL OR "version" = ANY ($2::integer[]))
  RETURNING "id", "name", "tag", "version"
)
SELECT changed."id"::text AS "id", changed."name" AS "name", changed."tag" AS "tag", changed."version" AS "version",
  CASE WHEN changed."id" IS NULL
    THEN EXISTS (SELECT FROM "plants" WHERE "id" = $1::bigint) END AS "__found"
FROM (VALUES (1)) AS one
LEFT JOIN changed ON true;

-- EntityWriter(Plant) plants-delete-with-events-4dQtxyuuiuvvPrpk
WITH changed AS (
  DELETE FROM "plants"
  WHERE "id" = $1::bigint
    AND ($2::integer[] IS NULL OR "version" = ANY ($2::integer[]))
  RETURNING "id", "name", "tag", "version"
),
events AS (
  INSERT INTO webhook_deliveries (event_id, event_type, subscriber, payload, traceparent)
  SELECT event.id, 'plant.deleted', subscriber.url, event.payload, event.traceparent
  FROM (
    SELECT gen_random_uuid() AS id, json_strip_nulls(json_build_object('id', "id"))::text AS payload,
      $4::text AS traceparent
    FROM changed
  ) AS event
  CROSS JOIN unnest($3::text[]) AS subscriber (url)
)
SELECT changed."id"::text AS "id", changed."name" AS "name", changed."tag" AS "tag", changed."version" AS "version",
  CASE WHEN changed."id" IS NULL
    THEN EXISTS (SELECT FROM "plants" WHERE "id" = $1::bigint) END AS "__found"
FROM (VALUES (1)) AS one
LEFT JOIN changed ON true;

-- EntityWriter(Plant) plants-select-current-d0E09P3SxJodeBBs
SELECT "id"::text AS "id", "name" AS "name", "tag" AS "tag", "version" AS "version"
FROM "plants"
WHERE "id" = $1::bigint;
