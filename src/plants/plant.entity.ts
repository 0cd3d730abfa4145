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

/** Never sent to a client: the wire shapes live in `dto/`. Every change is kept in the audit trail. */
@Entity({ name: 'plants' })
@Audited('plants')
// Keyset pages filtered by tag: WHERE tag = $1 AND id > $2 ORDER BY id.
@Index('plants_tag_id', ['tag', 'id'])
@Check('plants_name_length', `char_length(name) BETWEEN 1 AND ${PLANT_TEXT_MAX_LENGTH}`)
@Check('plants_tag_length', `tag IS NULL OR char_length(tag) BETWEEN 1 AND ${PLANT_TEXT_MAX_LENGTH}`)
export class Plant {
  /** int64; `pg` hands `bigint` over as a decimal string so that no digit is lost. */
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'plants_pkey' })
  id!: string;

  @Column({ type: 'varchar', length: PLANT_TEXT_MAX_LENGTH })
  name!: string;

  @Column({ type: 'varchar', length: PLANT_TEXT_MAX_LENGTH, nullable: true })
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
