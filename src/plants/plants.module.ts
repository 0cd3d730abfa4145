import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { EntityAccessModule, entityAccess } from '../core/database/entity-access.module.js';
import { Plant } from './plant.entity.js';
import { PlantsController } from './plants.controller.js';
import { PlantsMetrics } from './plants.metrics.js';
import { PlantsService } from './plants.service.js';

/**
 * The plants' fast paths: reads by id and keyset pages (by tag too, which
 * the (tag, id) index serves), batched creates that announce
 * `plant.created`, and updates and deletes, checked against the version
 * column, that announce `plant.updated` and `plant.deleted`. Their
 * statements are in `queries/plants.sql`.
 */
export const PLANT_ACCESS = entityAccess(Plant, {
  created: { event: 'plant.created' },
  updated: { event: 'plant.updated' },
  deleted: { event: 'plant.deleted' },
});

@Module({
  imports: [TypeOrmModule.forFeature([Plant]), EntityAccessModule.forFeature([PLANT_ACCESS])],
  controllers: [PlantsController],
  providers: [PlantsService, PlantsMetrics],
})
export class PlantsModule {}
