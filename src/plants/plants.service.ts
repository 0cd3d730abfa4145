import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { type Int64, int64FromString, int64ToString } from '../core/common/int64.js';
import { InjectEntityReader, InjectEntityWriter } from '../core/database/entity-access.module.js';
import { EntityReader, type ReadRow } from '../core/database/entity-reader.js';
import { EntityWriter } from '../core/database/entity-writer.js';
import { DEFAULT_PAGE_SIZE, type ListPlantsQueryDto } from './dto/list-plants.query.js';
import type { NewPlantDto } from './dto/new-plant.dto.js';
import { PlantDto, type StoredPlantView } from './dto/plant.dto.js';
import { Plant } from './plant.entity.js';
import { PlantIdTakenError, PlantNotFoundError } from './plant.errors.js';
import { PlantsMetrics } from './plants.metrics.js';

type PlantColumn = 'id' | 'name' | 'tag';
type PlantRow = ReadRow<Plant, PlantColumn>;

export interface PlantPage {
  readonly plants: StoredPlantView[];
  /** The `after` of the next page, when there is one. */
  readonly nextAfter?: string;
}

/**
 * Creates, reads and lists go through the platform's fast paths (prepared
 * statements on TypeORM's pool, batched creates that announce
 * `plant.created`: see PLANT_ACCESS); deletes through the repository.
 */
@Injectable()
export class PlantsService {
  constructor(
    @InjectRepository(Plant) private readonly plants: Repository<Plant>,
    @InjectEntityReader(Plant) private readonly reader: EntityReader<Plant, PlantColumn>,
    @InjectEntityWriter(Plant) private readonly writer: EntityWriter<Plant, PlantColumn>,
    private readonly metrics: PlantsMetrics,
  ) {}

  /**
   * Stores a new plant. Sending the same plant again is a success that writes
   * nothing, so clients may retry; another plant under a taken id is refused.
   */
  async create(newPlant: NewPlantDto): Promise<PlantDto> {
    const plant = { id: int64ToString(newPlant.id), name: newPlant.name, tag: newPlant.tag ?? null };
    const { created, stored } = await this.writer.write(plant);
    if (created) {
      this.metrics.created.inc();
    } else if (stored.name !== plant.name || stored.tag !== plant.tag) {
      throw new PlantIdTakenError(plant.id);
    }
    return PlantDto.from(stored);
  }

  async findOne(id: Int64): Promise<StoredPlantView> {
    const plant = await this.reader.findById(int64ToString(id));
    if (!plant) {
      throw new PlantNotFoundError(int64ToString(id));
    }
    return view(plant);
  }

  /**
   * A page of plants in id order, after a given id (keyset pagination): the
   * primary key, or the (tag, id) index with a tag, finds the page's start
   * directly, so every page costs the same, however deep.
   */
  async list(query: ListPlantsQueryDto): Promise<PlantPage> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const found = await this.reader.page({
      after: query.after === undefined ? undefined : int64ToString(query.after),
      limit: limit + 1,
      where: query.tag === undefined ? undefined : { tag: query.tag },
    });
    const page = found.slice(0, limit);
    return {
      plants: page.map(view),
      nextAfter: found.length > limit ? page[page.length - 1].id : undefined,
    };
  }

  async remove(id: Int64): Promise<void> {
    const { affected } = await this.plants.delete({ id: int64ToString(id) });
    if (!affected) {
      throw new PlantNotFoundError(int64ToString(id));
    }
  }
}

function view(plant: PlantRow): StoredPlantView {
  const id = int64FromString(plant.id);
  return plant.tag === null ? { id, name: plant.name } : { id, name: plant.name, tag: plant.tag };
}
