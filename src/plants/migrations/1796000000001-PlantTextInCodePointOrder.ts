import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Names and tags sort by code point (`COLLATE "C"`), the same on every database, and a btree on them
 * serves `LIKE 'x%'` whatever the database's locale. The type is the same, so the table is not
 * rewritten; PostgreSQL rebuilds plants_tag_id and checks the two CHECK constraints again, one pass
 * over the table under its exclusive lock.
 */
export class PlantTextInCodePointOrder1796000000001 implements MigrationInterface {
  name = 'PlantTextInCodePointOrder1796000000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "plants" ALTER COLUMN "name" TYPE character varying(255) COLLATE "C", ALTER COLUMN "tag" TYPE character varying(255) COLLATE "C"`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "plants" ALTER COLUMN "name" TYPE character varying(255) COLLATE "default", ALTER COLUMN "tag" TYPE character varying(255) COLLATE "default"`,
    );
  }
}
