import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';

import { type Int64, int64FromString, int64ToString } from '../core/common/int64.js';
import { databaseConfig, type DatabaseConfig } from '../core/config/database.config.js';
import { EntityReader, type ReadRow } from '../core/database/entity-reader.js';
import { postgresPool } from '../core/database/postgres-pool.js';
import { webhookConfig, type WebhookConfig } from '../core/config/webhook.config.js';
import { WebhookDispatcher } from '../core/webhooks/webhook-dispatcher.js';
import { DEFAULT_PAGE_SIZE, type ListPlantsQueryDto } from './dto/list-plants.query.js';
import type { NewPlantDto } from './dto/new-plant.dto.js';
import { PlantDto, type StoredPlantView } from './dto/plant.dto.js';
import { Plant } from './plant.entity.js';
import { PlantIdTakenError, PlantNotFoundError } from './plant.errors.js';
import { PlantWriter } from './plant-writer.js';
import { PlantsMetrics } from './plants.metrics.js';

type PlantColumn = 'id' | 'name' | 'tag';
type PlantRow = ReadRow<Plant, PlantColumn>;

export interface PlantPage {
  readonly plants: StoredPlantView[];
  /** The `after` of the next page, when there is one. */
  readonly nextAfter?: string;
}

@Injectable()
export class PlantsService {
  private readonly writer: PlantWriter;
  private readerOfPlants?: EntityReader<Plant, PlantColumn>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(Plant) private readonly plants: Repository<Plant>,
    @Inject(databaseConfig.KEY) database: DatabaseConfig,
    @Inject(webhookConfig.KEY) webhooks: WebhookConfig,
    private readonly metrics: PlantsMetrics,
    private readonly dispatcher: WebhookDispatcher,
  ) {
    // Creates use the pool TypeORM owns (one round trip per batch), not its query builder.
    this.writer = new PlantWriter(() => postgresPool(this.dataSource), {
      concurrency: database.writeConcurrency,
      maxBatchSize: database.writeBatchSize,
      subscribers: webhooks.urls,
    });
  }

  /**
   * Stores a new plant. Sending the same plant again is a success that writes
   * nothing, so clients may retry; another plant under a taken id is refused.
   */
  async create(newPlant: NewPlantDto): Promise<PlantDto> {
    const plant = { id: int64ToString(newPlant.id), name: newPlant.name, tag: newPlant.tag ?? null };
    const { created, stored } = await this.writer.write(plant);
    if (created) {
      this.metrics.created.inc();
      this.dispatcher.nudge();
    } else if (stored.name !== plant.name || stored.tag !== plant.tag) {
      throw new PlantIdTakenError(plant.id);
    }
    return PlantDto.from(stored);
  }

  /** Reads by id and pages: prepared statements on TypeORM's pool, the columns from the entity. */
  private get reader(): EntityReader<Plant, PlantColumn> {
    this.readerOfPlants ??= new EntityReader(this.dataSource, Plant, ['id', 'name', 'tag']);
    return this.readerOfPlants;
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
