import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trace context of the change an event announces (its `traceparent`),
 * stored with the event, so that each delivery's span links back to the
 * request that caused it. Nullable, with no default: adding it rewrites
 * nothing, and events stored before it, or without tracing, have none.
 */
export class AddWebhookTraceparent1795800000000 implements MigrationInterface {
  name = 'AddWebhookTraceparent1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "traceparent" character varying(55)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "traceparent"`);
  }
}
