import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The version behind the plants' ETags. A constant default makes this a
 * change of the catalogue only (PostgreSQL 11 and later): no table rewrite,
 * and every existing row reads as version 1.
 */
export class AddPlantVersion1795700000000 implements MigrationInterface {
  name = 'AddPlantVersion1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "plants" ADD "version" integer NOT NULL DEFAULT 1`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "plants" DROP COLUMN "version"`);
  }
}
