import type { DataSource } from 'typeorm';

export interface PlantRow {
  readonly id: string;
  readonly name: string;
  readonly tag: string | null;
}

export async function truncatePlants(db: DataSource): Promise<void> {
  await db.query('TRUNCATE plants');
}

/** Every stored plant, by id, with the id as exact decimal digits. */
export async function plantRows(db: DataSource): Promise<PlantRow[]> {
  return db.query<PlantRow[]>('SELECT id::text AS id, name, tag FROM plants ORDER BY id');
}

export async function plantRow(db: DataSource, id: bigint | number | string): Promise<PlantRow | undefined> {
  const [row] = await db.query<PlantRow[]>('SELECT id::text AS id, name, tag FROM plants WHERE id = $1', [
    String(id),
  ]);
  return row;
}
