import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox stored each subscriber's whole URL, credentials and query string
 * included, and a failure's message could hold it too. Rows now hold the
 * subscriber's key, its URL's origin and path; this rewrites the rows written
 * before, and cuts every URL in `last_error` to its origin and path. A URL
 * already in that form is left as it is, so most rows are not touched. The
 * key is computed here rather than imported, so that this migration does
 * what it did when it was written.
 */
export class KeyWebhookSubscribers1795900000001 implements MigrationInterface {
  name = 'KeyWebhookSubscribers1795900000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const subscribers = (await queryRunner.query(
      `SELECT DISTINCT subscriber FROM "webhook_deliveries"`,
    )) as Array<{ subscriber: string }>;
    for (const { subscriber } of subscribers) {
      const key = originAndPath(subscriber);
      if (key !== subscriber) {
        await queryRunner.query(`UPDATE "webhook_deliveries" SET "subscriber" = $1 WHERE "subscriber" = $2`, [
          key,
          subscriber,
        ]);
      }
    }
    const errors = (await queryRunner.query(
      `SELECT DISTINCT last_error FROM "webhook_deliveries" WHERE last_error LIKE '%://%'`,
    )) as Array<{ last_error: string }>;
    for (const { last_error: error } of errors) {
      const redacted = error.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, originAndPath);
      if (redacted !== error) {
        await queryRunner.query(`UPDATE "webhook_deliveries" SET "last_error" = $1 WHERE "last_error" = $2`, [
          redacted,
          error,
        ]);
      }
    }
  }

  /** The credentials and query strings are gone: there is nothing to put back. */
  public async down(): Promise<void> {}
}

function originAndPath(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.protocol}//${parsed.host}${parsed.pathname}` : 'an invalid URL';
}
