import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dispatcher claims each subscriber's due events apart (so that one
 * subscriber's backlog takes nothing from another's): the index of due
 * events leads with the subscriber. It replaces the one over all
 * subscribers, which nothing reads any more. Built CONCURRENTLY, as the
 * table takes writes meanwhile, hence `transaction = false`; a build that
 * fails leaves an invalid index, which the next run drops and builds again.
 */
export class IndexWebhookDeliveriesBySubscriber1795900000000 implements MigrationInterface {
  name = 'IndexWebhookDeliveriesBySubscriber1795900000000';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_deliveries_due_by_subscriber"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "webhook_deliveries_due_by_subscriber" ON "webhook_deliveries" ("subscriber", "next_attempt_at", "id") WHERE status = 'pending'`,
    );
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_deliveries_due"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_deliveries_due"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "webhook_deliveries_due" ON "webhook_deliveries" ("next_attempt_at", "id") WHERE status = 'pending'`,
    );
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_deliveries_due_by_subscriber"`);
  }
}
