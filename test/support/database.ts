import type pg from 'pg';

export interface PlantRow {
  readonly id: string;
  readonly name: string;
  readonly tag: string | null;
}

/** Empties every table of the application (a new resource's too), all but the record of migrations. */
export async function truncateAll(db: pg.Pool): Promise<void> {
  const { rows } = await db.query<{ name: string }>(
    "SELECT format('%I', tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'typeorm_migrations'",
  );
  if (rows.length > 0) {
    // The audit trail refuses a TRUNCATE but in a transaction that says it prunes.
    const client = await db.connect();
    try {
      await client.query('BEGIN');
      await client.query("SET LOCAL plant_store.audit_prune = 'on'");
      await client.query(`TRUNCATE ${rows.map((row) => row.name).join(', ')}`);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

/** Every stored plant, by id, with the id as exact decimal digits. */
export async function plantRows(db: pg.Pool): Promise<PlantRow[]> {
  const { rows } = await db.query<PlantRow>('SELECT id::text AS id, name, tag FROM plants ORDER BY id');
  return rows;
}

export async function plantRow(db: pg.Pool, id: bigint | number | string): Promise<PlantRow | undefined> {
  const { rows } = await db.query<PlantRow>('SELECT id::text AS id, name, tag FROM plants WHERE id = $1', [
    String(id),
  ]);
  return rows[0];
}
