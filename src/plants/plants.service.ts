import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { int64ToString } from '../common/int64.js';
import { PlantDto } from './dto/plant.dto.js';
import type { NewPlantDto } from './dto/new-plant.dto.js';
import { PlantIdTakenError } from './plant.errors.js';

interface CreateRow {
  readonly created: boolean;
  readonly name: string;
  readonly tag: string | null;
}

/**
 * Inserts the plant, or finds the one already stored under its id, in one
 * statement: `ON CONFLICT DO NOTHING` lets the database settle races between
 * concurrent creates, so there is no read-then-write window.
 */
const CREATE_SQL = `
  WITH inserted AS (
    INSERT INTO plants (id, name, tag) VALUES ($1, $2, $3)
    ON CONFLICT (id) DO NOTHING
    RETURNING name, tag
  )
  SELECT true AS created, name, tag FROM inserted
  UNION ALL
  SELECT false, name, tag FROM plants WHERE id = $1 AND NOT EXISTS (SELECT FROM inserted)`;

/**
 * When the conflicting row was committed after this statement's snapshot was
 * taken, the statement neither inserts nor sees it; a new statement will.
 */
const MAX_CREATE_ATTEMPTS = 3;

@Injectable()
export class PlantsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Stores a new plant. Sending the same plant again is a success that writes
   * nothing, so clients may retry; another plant under a taken id is refused.
   */
  async create(newPlant: NewPlantDto): Promise<PlantDto> {
    const id = int64ToString(newPlant.id);
    const tag = newPlant.tag ?? null;
    for (let attempt = 1; ; attempt++) {
      const [row] = await this.dataSource.query<CreateRow[]>(CREATE_SQL, [id, newPlant.name, tag]);
      if (row) {
        if (!row.created && (row.name !== newPlant.name || row.tag !== tag)) {
          throw new PlantIdTakenError(id);
        }
        return PlantDto.from(row);
      }
      if (attempt === MAX_CREATE_ATTEMPTS) {
        throw new Error(`Create of plant ${id} neither inserted nor found a row`);
      }
    }
  }
}
