import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryColumn,
  UpdateDateColumn,
  VersionColumn,
} from 'typeorm';

import { Audited } from '../core/audit/audited.decorator.js';

export const PLANT_TEXT_MAX_LENGTH = 255;

/**
 * Never sent to a client: the wire shapes live in `dto/`. Every change is kept in the audit trail. Text
 * is in code-point order (`COLLATE "C"`), the same on every database, and so one btree serves both a
 * sort by it and a `LIKE 'x%'` prefix.
 */
@Entity({ name: 'plants' })
@Audited('plants')
// The list's sorts and filters (dto/list-plants.query.ts): each field's btree, its id the tie-breaker.
@Index('plants_name_id', ['name', 'id'])
@Index('plants_tag_id', ['tag', 'id'])
// `contains`: trigram indexes, which TypeORM cannot describe (migrations/…-AddPlantListIndexes.ts).
@Index('plants_name_trgm', { synchronize: false })
@Index('plants_tag_trgm', { synchronize: false })
@Check('plants_name_length', `char_length(name) BETWEEN 1 AND ${PLANT_TEXT_MAX_LENGTH}`)
@Check('plants_tag_length', `tag IS NULL OR char_length(tag) BETWEEN 1 AND ${PLANT_TEXT_MAX_LENGTH}`)
export class Plant {
  /** int64; `pg` hands `bigint` over as a decimal string so that no digit is lost. */
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'plants_pkey' })
  id!: string;

  @Column({ type: 'varchar', length: PLANT_TEXT_MAX_LENGTH, collation: 'C' })
  name!: string;

  @Column({ type: 'varchar', length: PLANT_TEXT_MAX_LENGTH, nullable: true, collation: 'C' })
  tag!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** Its `Last-Modified`: set by every change, to the time of the change's transaction. */
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  /** Counts the changes of the row: its ETag, and what `If-Match` is checked against. */
  @VersionColumn({ default: 1 })
  version!: number;
}
