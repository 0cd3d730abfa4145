import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * CONCURRENTLY keeps a large table writable during the build and cannot run in a transaction. A
 * failed build leaves an invalid index, which the next run drops and builds again.
 */
export class AddPlantTagIndex1795349339560 implements MigrationInterface {
  name = 'AddPlantTagIndex1795349339560';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "plants_tag_id"`);
    await queryRunner.query(`CREATE INDEX CONCURRENTLY "plants_tag_id" ON "plants" ("tag", "id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "plants_tag_id"`);
  }
}
