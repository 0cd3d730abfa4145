import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox's event type, and when a dead event died (see WebhookDelivery).
 * Every row written before this is a new plant's event: the column is added
 * with that as its default, which PostgreSQL records without rewriting the
 * table, then the default is dropped, as writers always name the type. Rows
 * already dead count their retention from now, so none is deleted at once.
 */
export class AddWebhookEventTypeAndDeadAt1795436000000 implements MigrationInterface {
  name = 'AddWebhookEventTypeAndDeadAt1795436000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD "event_type" character varying(64) NOT NULL DEFAULT 'plant.created'`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ALTER COLUMN "event_type" DROP DEFAULT`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "dead_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`UPDATE "webhook_deliveries" SET "dead_at" = now() WHERE "status" = 'dead'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "dead_at"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "event_type"`);
  }
}
