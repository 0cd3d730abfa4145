import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { int64ToString } from '../common/int64.js';
import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import { Metrics } from '../metrics/metrics.js';
import { PlantDto } from './dto/plant.dto.js';
import type { NewPlantDto } from './dto/new-plant.dto.js';
import { PlantIdTakenError } from './plant.errors.js';
import { PlantWriter, type Queryable } from './plant-writer.js';

@Injectable()
export class PlantsService {
  private readonly writer: PlantWriter;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(databaseConfig.KEY) config: DatabaseConfig,
    private readonly metrics: Metrics,
  ) {
    // The writer uses the pool TypeORM owns (one round trip per batch), not its query builder.
    this.writer = new PlantWriter(() => (dataSource.driver as unknown as { master: Queryable }).master, {
      concurrency: config.writeConcurrency,
      maxBatchSize: config.writeBatchSize,
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
      this.metrics.plantsCreated.inc();
    } else if (stored.name !== plant.name || stored.tag !== plant.tag) {
      throw new PlantIdTakenError(plant.id);
    }
    return PlantDto.from(stored);
  }
}
