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
    await db.query(`TRUNCATE ${rows.map((row) => row.name).join(', ')}`);
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
