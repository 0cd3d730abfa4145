import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Patch,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import type { Response } from 'express';

import type { Int64 } from '../core/common/int64.js';
import { ApiErrorResponses } from '../core/errors/api-error-responses.decorator.js';
import { IfMatch, IfNoneMatch, setValidators } from '../core/http/conditional-requests.js';
import { JSON_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE } from '../core/http/json-body.parser.js';
import { ApiListResponse, sendListHeaders } from '../core/lists/list-response.js';
import { type CountPreference, PreferCount } from '../core/lists/prefer.js';
import { ApiResource } from '../core/openapi/api-resource.decorator.js';
import { ParseInt64Pipe } from '../core/validation/parse-int64.pipe.js';
import { ListPlantsQueryDto, PLANTS_LIST } from './dto/list-plants.query.js';
import { NewPlantDto } from './dto/new-plant.dto.js';
import { PlantPatchDto } from './dto/plant-patch.dto.js';
import { PlantDto, type StoredPlantView } from './dto/plant.dto.js';
import { PLANT_ID_DESCRIPTION } from './dto/plant-fields.js';
import { PLANT_ID_TAKEN, PLANT_NOT_FOUND } from './plant.errors.js';
import { plantView } from './plant.view.js';
import { PlantsService } from './plants.service.js';

const ID_PARAMETER = {
  name: 'id',
  description: PLANT_ID_DESCRIPTION,
  schema: { type: 'integer', format: 'int64' },
  // The id NewPlant's example creates, so that the examples, called in turn, find their plant.
  examples: { created: { summary: "The example plant's id", value: 10 } },
} as const;

@ApiResource('plants', 'Plant records')
@Controller('plants')
export class PlantsController {
  constructor(private readonly plants: PlantsService) {}

  @Post()
  @HttpCode(HttpStatus.OK)
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
  @ApiOperation({
    operationId: 'listPlants',
    summary: 'List plants',
    description:
      'Returns the plants a page at a time, in id order or as `sort` says, filtered by the parameters ' +
      'given (all of them), each served by an index. When there are more, the Link header gives the next ' +
      'page (rel="next"). With `Prefer: count=exact` or `count=estimated`, Content-Range says how many ' +
      'plants the filters select.',
  })
  @ApiListResponse(PLANTS_LIST, {
    path: '/plants',
    items: NewPlantDto,
    description: 'A page of plants, each with its id',
  })
  @ApiErrorResponses(HttpStatus.BAD_REQUEST)
  async list(
    @Query() query: ListPlantsQueryDto,
    @PreferCount() count: CountPreference | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StoredPlantView[]> {
    const page = await this.plants.list(query, count);
    sendListHeaders(response, page);
    return page.items.map(plantView);
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'getPlant',
    summary: 'Read a plant',
    description:
      'Returns the plant stored under the id, and its version as ETag. With If-None-Match naming that ' +
      'version, answers 304 with no body.',
  })
  @ApiParam(ID_PARAMETER)
  @ApiOkResponse({ type: NewPlantDto, description: 'The plant, with its id' })
  @ApiErrorResponses(HttpStatus.BAD_REQUEST, PLANT_NOT_FOUND)
  async findOne(
    @Param('id', ParseInt64Pipe) id: Int64,
    @IfNoneMatch() ifNoneMatch: IfNoneMatch | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StoredPlantView | globalThis.Response> {
    const plant = await this.plants.findOne(id);
    return setValidators(response, plant, ifNoneMatch) ?? plantView(plant);
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'updatePlant',
    summary: 'Change a plant',
    description:
      'Applies a JSON Merge Patch (RFC 7396) to the plant: the properties sent are set, `"tag": null` ' +
      'removes the tag, the others stay as they are; the id cannot change. With If-Match, only if the ' +
      'plant is still at that version (else 412, and nothing changes). An empty patch changes nothing.',
  })
  @ApiParam(ID_PARAMETER)
  @ApiConsumes(MERGE_PATCH_MEDIA_TYPE, JSON_MEDIA_TYPE)
  @ApiBody({
    type: PlantPatchDto,
    required: true,
    description: 'What to change',
    // No id: one is refused unless it is the path's, and the schema's example cannot know the path.
    examples: {
      retag: { summary: 'Change the tag', value: { tag: 'climber' } },
      untag: { summary: 'Remove the tag', value: { tag: null } },
      rename: { summary: 'Rename', value: { name: 'Monstera adansonii' } },
    },
  })
  @ApiOkResponse({ type: NewPlantDto, description: 'The plant as it is now, with its id' })
  @ApiErrorResponses(
    HttpStatus.BAD_REQUEST,
    PLANT_NOT_FOUND,
    HttpStatus.PAYLOAD_TOO_LARGE,
    HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  )
  async update(
    @Param('id', ParseInt64Pipe) id: Int64,
    @Body() patch: PlantPatchDto,
    @IfMatch() ifMatch: IfMatch | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StoredPlantView> {
    const plant = await this.plants.update(id, patch, ifMatch);
    setValidators(response, plant);
    return plantView(plant);
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({
    operationId: 'deletePlant',
    summary: 'Delete a plant',
    description:
      'Deletes the plant stored under the id; with If-Match, only if it is still at that version ' +
      '(else 412, and nothing changes).',
  })
  @ApiParam(ID_PARAMETER)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrorResponses(HttpStatus.BAD_REQUEST, PLANT_NOT_FOUND)
  remove(@Param('id', ParseInt64Pipe) id: Int64, @IfMatch() ifMatch: IfMatch | undefined): Promise<void> {
    return this.plants.remove(id, ifMatch);
  }
}
