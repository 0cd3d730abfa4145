import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreatePlants1795339924592 implements MigrationInterface {
  name = 'CreatePlants1795339924592';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "plants" ("id" bigint NOT NULL, "name" character varying(255) NOT NULL, "tag" character varying(255), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "plants_tag_length" CHECK (tag IS NULL OR char_length(tag) BETWEEN 1 AND 255), CONSTRAINT "plants_name_length" CHECK (char_length(name) BETWEEN 1 AND 255), CONSTRAINT "plants_pkey" PRIMARY KEY ("id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "plants"`);
  }
}
