import type { DataSource } from 'typeorm';

/** The part of pg's Pool that the hand-written statements use. */
export interface Queryable {
  query<Row>(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: Row[] }>;
}

/**
 * The pg pool TypeORM opened (the same connections, limits and timeouts), for
 * statements TypeORM's API has no word for: batched inserts with their
 * outbox rows, outbox claims with SKIP LOCKED. Read once the data source is
 * initialised.
 */
export function postgresPool(dataSource: DataSource): Queryable {
  return (dataSource.driver as unknown as { master: Queryable }).master;
}
