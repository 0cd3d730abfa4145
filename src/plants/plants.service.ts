import { isDeepStrictEqual } from 'node:util';

import { Injectable } from '@nestjs/common';

import { type Int64, int64ToString } from '../core/common/int64.js';
import type { IfMatch } from '../core/database/if-match.js';
import type { ListPage } from '../core/lists/list-pages.js';
import { listRequest } from '../core/lists/list-request.js';
import type { CountPreference } from '../core/lists/prefer.js';
import { patchChanges } from '../core/validation/merge-patch.js';
import { type ListPlantsQueryDto, PLANTS_LIST } from './dto/list-plants.query.js';
import type { NewPlantDto } from './dto/new-plant.dto.js';
import type { PlantPatchDto } from './dto/plant-patch.dto.js';
import { PlantDto } from './dto/plant.dto.js';
import type { Plant } from './plant.entity.js';
import { PlantIdTakenError, PlantNotFoundError } from './plant.errors.js';
import { PlantsMetrics } from './plants.metrics.js';
import { PlantsRepository } from './plants.repository.js';

@Injectable()
export class PlantsService {
  constructor(
    private readonly plants: PlantsRepository,
    private readonly metrics: PlantsMetrics,
  ) {}

  /** The same plant sent again succeeds without writing, so that clients may retry. */
  async create(newPlant: NewPlantDto): Promise<PlantDto> {
    const plant = { ...newPlant, id: int64ToString(newPlant.id) };
    const { created, stored } = await this.plants.create(plant);
    const answer = PlantDto.from(stored);
    if (created) {
      this.metrics.created.inc();
    } else if (!isDeepStrictEqual(answer, PlantDto.from(plant))) {
      throw new PlantIdTakenError(plant.id);
    }
    return answer;
  }

  async findOne(id: Int64): Promise<Plant> {
    const plant = await this.plants.findById(int64ToString(id));
    if (!plant) {
      throw new PlantNotFoundError(int64ToString(id));
    }
    return plant;
  }

  list(query: ListPlantsQueryDto, count?: CountPreference): Promise<ListPage<Plant>> {
    return this.plants.page(listRequest(PLANTS_LIST, query), count);
  }

  /** An empty patch changes nothing, not even the version, and announces nothing. */
  async update(id: Int64, patch: PlantPatchDto, ifMatch?: IfMatch): Promise<Plant> {
    const key = int64ToString(id);
    const plant = await this.plants.update(key, patchChanges(patch, id), ifMatch);
    if (!plant) {
      throw new PlantNotFoundError(key);
    }
    return plant;
  }

  async remove(id: Int64, ifMatch?: IfMatch): Promise<void> {
    const key = int64ToString(id);
    if (!(await this.plants.remove(key, ifMatch))) {
      throw new PlantNotFoundError(key);
    }
  }
}
