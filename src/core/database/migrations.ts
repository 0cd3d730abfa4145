import { setTimeout as sleep } from 'node:timers/promises';

import type { Logger } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';

/** Any fixed number: the key of the advisory lock that serialises migration runs. */
const MIGRATION_LOCK_KEY = 0x706c616e74; // "plant"
const LOCK_POLL_INTERVAL_MS = 250;
const LOCK_WAIT_LIMIT_MS = 10 * 60_000;

/** Instances started together take turns on an advisory lock rather than race to create the tables. */
export async function runMigrations(dataSource: DataSource, logger: Pick<Logger, 'log'>): Promise<void> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await takeLock(lock, logger);
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

/**
 * Polls rather than waits in one statement: a waiting statement holds a snapshot open, which a
 * CONCURRENTLY index build waits for, so the two would block each other until a timeout.
 */
async function takeLock(lock: QueryRunner, logger: Pick<Logger, 'log'>): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_LIMIT_MS;
  for (let attempt = 0; ; attempt++) {
    const [{ locked }] = (await lock.query('SELECT pg_try_advisory_lock($1) AS locked', [
      MIGRATION_LOCK_KEY,
    ])) as Array<{ locked: boolean }>;
    if (locked) {
      return;
    }
    if (attempt === 0) {
      logger.log('Another instance is applying migrations: waiting for it');
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Another instance held the migration lock for over ${LOCK_WAIT_LIMIT_MS / 60_000} minutes`,
      );
    }
    await sleep(LOCK_POLL_INTERVAL_MS);
  }
}
