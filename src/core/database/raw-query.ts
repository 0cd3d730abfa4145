import type { DataSource } from 'typeorm';

/** What runs a statement written by hand, and answers its rows. */
export interface Queryable {
  query<Row>(config: { text: string; values?: unknown[] }): Promise<{ rows: Row[] }>;
}

/**
 * Statements TypeORM's query builder has no word for (the outbox's claims
 * with `SKIP LOCKED`, its clean-up in batches), on TypeORM's connections to
 * the primary, each its own transaction. The rows are those of `RETURNING`
 * too, whatever the command.
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
