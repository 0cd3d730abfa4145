import type { DataSource } from 'typeorm';

/** What runs a statement written by hand, and answers its rows. */
export interface Queryable {
  query<Row>(config: { text: string; values?: unknown[] }): Promise<{ rows: Row[] }>;
}

/**
 * Runs a statement that works on at most `batchSize` rows (its last parameter) and answers their
 * `count`, until a batch is not full or `stop()` is true; answers the total.
 */
export async function inBatches(
  db: Queryable,
  text: string,
  values: unknown[],
  batchSize: number,
  stop: () => boolean = () => false,
): Promise<number> {
  let total = 0;
  let count: number;
  do {
    if (stop()) {
      return total;
    }
    ({
      rows: [{ count }],
    } = await db.query<{ count: number }>({ text, values: [...values, batchSize] }));
    total += count;
  } while (count === batchSize);
  return total;
}

/**
 * For statements the query builder cannot say (the outbox's `SKIP LOCKED` claims), on the primary,
 * each its own transaction; the rows include `RETURNING`'s, whatever the command.
 */
export function rawQueries(dataSource: DataSource): Queryable {
  return {
    async query<Row>({ text, values }: { text: string; values?: unknown[] }) {
      const runner = dataSource.createQueryRunner('master');
      try {
        const result = await runner.query(text, values, true);
        return { rows: result.records as Row[] };
      } finally {
        await runner.release();
      }
    },
  };
}
