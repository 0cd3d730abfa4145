import type { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';

/** Any fixed number: the key of the advisory lock that serialises migration runs. */
const MIGRATION_LOCK_KEY = 0x706c616e74; // "plant"

/**
 * Runs pending migrations, one instance at a time: instances started
 * together wait for each other on a PostgreSQL advisory lock instead of
 * racing to create the same tables.
 */
export async function runMigrations(dataSource: DataSource, logger: Pick<Logger, 'log'>): Promise<void> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    logger.log(
      applied.length > 0
        ? `Applied migrations: ${applied.map((migration) => migration.name).join(', ')}`
        : 'Database schema is up to date',
    );
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.release();
  }
}
