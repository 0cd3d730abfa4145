import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The index through which the upkeep finds unsubscribed rows past their
 * retention, and the metrics count them. Built CONCURRENTLY, as the table
 * takes writes meanwhile, hence `transaction = false`; a build that fails
 * leaves an invalid index, which the next run drops and builds again.
 */
export class AddWebhookUnsubscribedIndex1795900000003 implements MigrationInterface {
  name = 'AddWebhookUnsubscribedIndex1795900000003';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_deliveries_unsubscribed"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "webhook_deliveries_unsubscribed" ON "webhook_deliveries" ("unsubscribed_at") WHERE status = 'unsubscribed'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_deliveries_unsubscribed"`);
  }
}
