import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The (tag, id) index behind `GET /plants?tag=…`. Built CONCURRENTLY, so
 * that a large table keeps taking writes meanwhile; that cannot run inside a
 * transaction, hence `transaction = false`. A build that fails leaves an
 * invalid index, which the next run drops and builds again.
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
