import { Injectable } from '@nestjs/common';

import { type Int64, int64FromString, int64ToString } from '../core/common/int64.js';
import { InjectEntityReader, InjectEntityWriter } from '../core/database/entity-access.module.js';
import { EntityReader, type ReadRow, type VersionedReadRow } from '../core/database/entity-reader.js';
import { EntityWriter, type WritePrecondition } from '../core/database/entity-writer.js';
import { changedRow } from '../core/http/conditional-requests.js';
import { patchChanges } from '../core/validation/merge-patch.js';
import { DEFAULT_PAGE_SIZE, type ListPlantsQueryDto } from './dto/list-plants.query.js';
import type { NewPlantDto } from './dto/new-plant.dto.js';
import type { PlantPatchDto } from './dto/plant-patch.dto.js';
import { PlantDto, type StoredPlantView } from './dto/plant.dto.js';
import { Plant } from './plant.entity.js';
import { PlantIdTakenError, PlantNotFoundError } from './plant.errors.js';
import { PlantsMetrics } from './plants.metrics.js';

type PlantColumn = 'id' | 'name' | 'tag';
type PlantRow = ReadRow<Plant, PlantColumn>;
/** A stored plant and its version (its ETag). */
export type PlantRecord = VersionedReadRow<Plant, PlantColumn>;

export interface PlantPage {
  readonly plants: StoredPlantView[];
  /** The `after` of the next page, when there is one. */
  readonly nextAfter?: string;
}

/**
 * Everything goes through the platform's fast paths (prepared statements on
 * TypeORM's pool; batched creates; updates and deletes of one statement
 * each, checked against If-Match there; each change announced to webhook
 * subscribers by its own statement: see PLANT_ACCESS).
 */
@Injectable()
export class PlantsService {
  constructor(
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

  /** The plant with its version: `plantView` makes its wire shape. */
  async findOne(id: Int64): Promise<PlantRecord> {
    const plant = await this.reader.findById(int64ToString(id));
    if (!plant) {
      throw new PlantNotFoundError(int64ToString(id));
    }
    return plant;
  }

  /**
   * Applies a merge patch, if the plant is at a version the precondition
   * allows (else 412), and answers the plant as it is now. An empty patch
   * changes nothing, not even the version.
   */
  async update(id: Int64, patch: PlantPatchDto, precondition?: WritePrecondition): Promise<PlantRecord> {
    const key = int64ToString(id);
    const outcome = await this.writer.update(key, patchChanges(patch, id), precondition);
    return changedRow(outcome, () => new PlantNotFoundError(key));
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
      plants: page.map(plantView),
      nextAfter: found.length > limit ? page[page.length - 1].id : undefined,
    };
  }

  async remove(id: Int64, precondition?: WritePrecondition): Promise<void> {
    const key = int64ToString(id);
    changedRow(await this.writer.remove(key, precondition), () => new PlantNotFoundError(key));
  }
}

/** A stored plant as clients read it: `{id, name, tag?}`. */
export function plantView(plant: PlantRow): StoredPlantView {
  const id = int64FromString(plant.id);
  return plant.tag === null ? { id, name: plant.name } : { id, name: plant.name, tag: plant.tag };
}
