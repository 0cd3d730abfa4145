import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { Response } from 'express';

import { RequireScopes } from '../core/auth/scopes.js';
import { ApiResource } from '../core/openapi/api-resource.decorator.js';
import type { Int64 } from '../core/common/int64.js';
import { ApiErrorResponses } from '../core/errors/api-error-responses.decorator.js';
import { ParseInt64Pipe } from '../core/validation/parse-int64.pipe.js';
import { ListPlantsQueryDto } from './dto/list-plants.query.js';
import { NewPlantDto } from './dto/new-plant.dto.js';
import { PlantDto, type StoredPlantView } from './dto/plant.dto.js';
import { PLANT_ID_DESCRIPTION } from './dto/plant-fields.js';
import { PLANT_ID_TAKEN, PLANT_NOT_FOUND } from './plant.errors.js';
import { PlantsService } from './plants.service.js';

const ID_PARAMETER = {
  name: 'id',
  description: PLANT_ID_DESCRIPTION,
  schema: { type: 'integer', format: 'int64' },
} as const;

@ApiResource('plants', 'Plant records')
@Controller('plants')
export class PlantsController {
  constructor(private readonly plants: PlantsService) {}

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequireScopes('plants:write')
  @ApiOperation({
    operationId: 'addPlant',
    summary: 'Create a plant',
    description:
      'Creates a new plant in the store. Sending the same plant again answers 200 and writes nothing; ' +
      'another plant under an id that is taken answers 409.',
  })
  @ApiBody({ type: NewPlantDto, required: true, description: 'Plant to add to the store' })
  @ApiOkResponse({ type: PlantDto, description: 'The stored plant' })
  @ApiErrorResponses(
    HttpStatus.BAD_REQUEST,
    PLANT_ID_TAKEN,
    HttpStatus.PAYLOAD_TOO_LARGE,
    HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  )
  create(@Body() newPlant: NewPlantDto): Promise<PlantDto> {
    return this.plants.create(newPlant);
  }

  @Get()
  @RequireScopes('plants:read')
  @ApiOperation({
    operationId: 'listPlants',
    summary: 'List plants',
    description:
      'Returns the plants in id order, a page at a time. When there are more, the Link header ' +
      'gives the next page (rel="next"): the same query with `after` set to the last id of this page.',
  })
  @ApiOkResponse({
    type: NewPlantDto,
    isArray: true,
    description: 'A page of plants, each with its id',
    headers: {
      Link: {
        description: 'The next page, when there is one: `</plants?limit=20&after=42>; rel="next"`',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrorResponses(HttpStatus.BAD_REQUEST)
  async list(
    @Query() query: ListPlantsQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StoredPlantView[]> {
    const page = await this.plants.list(query);
    if (page.nextAfter !== undefined) {
      response.setHeader('Link', `<${nextPageUrl(query, page.nextAfter)}>; rel="next"`);
    }
    return page.plants;
  }

  @Get(':id')
  @RequireScopes('plants:read')
  @ApiOperation({
    operationId: 'getPlant',
    summary: 'Read a plant',
    description: 'Returns the plant stored under the id.',
  })
  @ApiParam(ID_PARAMETER)
  @ApiOkResponse({ type: NewPlantDto, description: 'The plant, with its id' })
  @ApiErrorResponses(HttpStatus.BAD_REQUEST, PLANT_NOT_FOUND)
  findOne(@Param('id', ParseInt64Pipe) id: Int64): Promise<StoredPlantView> {
    return this.plants.findOne(id);
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  @RequireScopes('plants:write')
  @ApiOperation({
    operationId: 'deletePlant',
    summary: 'Delete a plant',
    description: 'Deletes the plant stored under the id.',
  })
  @ApiParam(ID_PARAMETER)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrorResponses(HttpStatus.BAD_REQUEST, PLANT_NOT_FOUND)
  remove(@Param('id', ParseInt64Pipe) id: Int64): Promise<void> {
    return this.plants.remove(id);
  }
}

/** The next page's address, relative to this service: the same query, after the last id. */
function nextPageUrl(query: ListPlantsQueryDto, after: string): string {
  const parameters = new URLSearchParams();
  if (query.limit !== undefined) {
    parameters.set('limit', String(query.limit));
  }
  parameters.set('after', after);
  if (query.tag !== undefined) {
    parameters.set('tag', query.tag);
  }
  return `/plants?${parameters.toString()}`;
}
