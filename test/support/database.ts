import type pg from 'pg';

export interface PlantRow {
  readonly id: string;
  readonly name: string;
  readonly tag: string | null;
}

export async function truncatePlants(db: pg.Pool): Promise<void> {
  await db.query('TRUNCATE plants');
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
