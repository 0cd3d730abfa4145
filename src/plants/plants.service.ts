import { Injectable } from '@nestjs/common';

import type { IfMatch } from '../core/database/if-match.js';
import { patchChanges } from '../core/validation/merge-patch.js';
import { DEFAULT_PAGE_SIZE, type ListPlantsQueryDto } from './dto/list-plants.query.js';
import type { NewPlantDto } from './dto/new-plant.dto.js';
import type { PlantPatchDto } from './dto/plant-patch.dto.js';
import { PlantDto, type StoredPlantView } from './dto/plant.dto.js';
import { PlantIdTakenError, PlantNotFoundError } from './plant.errors.js';
import { plantView } from './plant.view.js';
import { PlantsMetrics } from './plants.metrics.js';
import { PlantsRepository, type StoredPlant } from './plants.repository.js';

export interface PlantPage {
  readonly plants: StoredPlantView[];
  /** The `after` of the next page, when there is one. */
  readonly nextAfter?: string;
}

@Injectable()
export class PlantsService {
  constructor(
    private readonly plants: PlantsRepository,
    private readonly metrics: PlantsMetrics,
  ) {}

  /** The same plant sent again succeeds without writing, so that clients may retry. */
  async create(newPlant: NewPlantDto): Promise<PlantDto> {
    const plant = { id: String(newPlant.id), name: newPlant.name, tag: newPlant.tag ?? null };
    const { created, stored } = await this.plants.create(plant);
    if (created) {
      this.metrics.created.inc();
    } else if (stored.name !== plant.name || stored.tag !== plant.tag) {
      throw new PlantIdTakenError(plant.id);
    }
    return PlantDto.from(stored);
  }

  async findOne(id: number | bigint): Promise<StoredPlant> {
    const plant = await this.plants.findById(String(id));
    if (!plant) {
      throw new PlantNotFoundError(String(id));
    }
    return plant;
  }

  /** Keyset pagination: an index finds the page's start directly, so a deep page costs no more. */
  async list(query: ListPlantsQueryDto): Promise<PlantPage> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const found = await this.plants.page({
      after: query.after === undefined ? undefined : String(query.after),
      tag: query.tag,
      limit: limit + 1,
    });
    const page = found.slice(0, limit);
    return {
      plants: page.map(plantView),
      nextAfter: found.length > limit ? page[page.length - 1].id : undefined,
    };
  }

  /** An empty patch changes nothing, not even the version, and announces nothing. */
  async update(id: number | bigint, patch: PlantPatchDto, ifMatch?: IfMatch): Promise<StoredPlant> {
    const key = String(id);
    const plant = await this.plants.update(key, patchChanges(patch, id), ifMatch);
    if (!plant) {
      throw new PlantNotFoundError(key);
    }
    return plant;
  }

  async remove(id: number | bigint, ifMatch?: IfMatch): Promise<void> {
    const key = String(id);
    if (!(await this.plants.remove(key, ifMatch))) {
      throw new PlantNotFoundError(key);
    }
  }
}
