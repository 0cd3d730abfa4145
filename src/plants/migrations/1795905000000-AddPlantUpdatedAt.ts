import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A default that is not volatile is stored once, not written into every row, so the column is added
 * without rewriting the table; plants stored before it take the time of the migration as their
 * `Last-Modified`, later than (never before) their last change.
 */
export class AddPlantUpdatedAt1795905000000 implements MigrationInterface {
  name = 'AddPlantUpdatedAt1795905000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "plants" ADD "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "plants" DROP COLUMN "updated_at"`);
  }
}
