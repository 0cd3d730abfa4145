import { Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { RequireScopes } from '../auth/scopes.js';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator.js';
import { JsonBody } from '../http/json-body.decorator.js';
import { NewPlantDto } from './dto/new-plant.dto.js';
import { PlantDto } from './dto/plant.dto.js';
import { PlantsService } from './plants.service.js';

@ApiTags('plants')
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
    HttpStatus.FORBIDDEN,
    HttpStatus.CONFLICT,
    HttpStatus.PAYLOAD_TOO_LARGE,
    HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  )
  create(@JsonBody() newPlant: NewPlantDto): Promise<PlantDto> {
    return this.plants.create(newPlant);
  }
}
