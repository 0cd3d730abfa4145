import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events of a subscriber no longer configured get a state of their own,
 * `unsubscribed`, and the time they got it, from which their retention
 * counts; and the leases through which instances tell which subscribers some
 * instance is still configured with (see WebhookSubscriberLease). Adding a
 * nullable column without a default rewrites nothing.
 */
export class AddWebhookSubscriberLeases1795900000002 implements MigrationInterface {
  name = 'AddWebhookSubscriberLeases1795900000002';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_deliveries" ADD "unsubscribed_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_subscribers" ("subscriber" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "webhook_subscribers_pkey" PRIMARY KEY ("subscriber"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_subscribers"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "unsubscribed_at"`);
  }
}
