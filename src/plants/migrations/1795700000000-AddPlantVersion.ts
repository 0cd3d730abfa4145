import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A constant default changes only the catalogue (PostgreSQL 11+): no table rewrite. */
export class AddPlantVersion1795700000000 implements MigrationInterface {
  name = 'AddPlantVersion1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "plants" ADD "version" integer NOT NULL DEFAULT 1`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "plants" DROP COLUMN "version"`);
  }
}
