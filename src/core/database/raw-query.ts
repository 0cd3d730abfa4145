import type { DataSource } from 'typeorm';

/** What runs a statement written by hand, and answers its rows. */
export interface Queryable {
  query<Row>(config: { text: string; values?: unknown[] }): Promise<{ rows: Row[] }>;
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
