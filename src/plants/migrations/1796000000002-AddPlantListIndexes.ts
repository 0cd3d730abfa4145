import type { MigrationInterface, QueryRunner } from 'typeorm';

const INDEXES = {
  // A sort by name, and a name filter (prefix included) in any order: WHERE name >= $1 … ORDER BY name, id.
  plants_name_id: `ON "plants" ("name", "id")`,
  // `contains` (ILIKE '%x%'), case folded in the database's default collation, as the filter asks.
  plants_name_trgm: `ON "plants" USING gin ("name" COLLATE "default" gin_trgm_ops)`,
  plants_tag_trgm: `ON "plants" USING gin ("tag" COLLATE "default" gin_trgm_ops)`,
};

/**
 * The indexes of the plants' list (dto/list-plants.query.ts); the tag's btree is plants_tag_id.
 * CONCURRENTLY keeps the table writable while they build, and cannot run in a transaction; a
 * failed build leaves an invalid index, which the next run drops and builds again.
 */
export class AddPlantListIndexes1796000000002 implements MigrationInterface {
  name = 'AddPlantListIndexes1796000000002';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const [name, definition] of Object.entries(INDEXES)) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
      await queryRunner.query(`CREATE INDEX CONCURRENTLY "${name}" ${definition}`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of Object.keys(INDEXES).reverse()) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
    }
  }
}
