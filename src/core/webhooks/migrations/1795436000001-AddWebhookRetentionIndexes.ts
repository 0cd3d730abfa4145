import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The indexes through which the outbox's upkeep finds delivered and dead rows
 * past their retention, and the metrics count the dead ones, without reading
 * the whole table. Built CONCURRENTLY, as the table may be large (delivered
 * rows were kept for ever until now) and must keep taking writes meanwhile;
 * that cannot run inside a transaction, hence `transaction = false`. A build
 * that fails leaves an invalid index, which the next run drops and builds again.
 */
export class AddWebhookRetentionIndexes1795436000001 implements MigrationInterface {
  name = 'AddWebhookRetentionIndexes1795436000001';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_deliveries_delivered"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "webhook_deliveries_delivered" ON "webhook_deliveries" ("delivered_at") WHERE status = 'delivered'`,
    );
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_deliveries_dead"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "webhook_deliveries_dead" ON "webhook_deliveries" ("dead_at") WHERE status = 'dead'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_deliveries_dead"`);
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_deliveries_delivered"`);
  }
}
