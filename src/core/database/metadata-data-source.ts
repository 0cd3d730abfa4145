import type { Type } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * A PostgreSQL data source that knows these entities' metadata and never
 * connects: what `DataSource.initialize` does before it connects (the
 * metadata, built and checked), for what reads the metadata alone.
 */
export async function metadataDataSource(entities: readonly Type[]): Promise<DataSource> {
  const dataSource = new DataSource({ type: 'postgres', entities: [...entities] });
  await (dataSource as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  return dataSource;
}
