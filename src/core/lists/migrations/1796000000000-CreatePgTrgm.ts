import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * pg_trgm's trigram indexes serve a list's `contains` filter (`ILIKE '%x%'`). It is a trusted
 * extension (PostgreSQL 13+): the database's owner may create it without superuser
 * (docs/operations.md#the-pg_trgm-extension).
 */
export class CreatePgTrgm1796000000000 implements MigrationInterface {
  name = 'CreatePgTrgm1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP EXTENSION IF EXISTS pg_trgm`);
  }
}
