import { Controller, Get, HttpStatus, ServiceUnavailableException } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';

import { Public } from '../auth/public.decorator.js';
import { ApiResource } from '../openapi/api-resource.decorator.js';
import { ApiErrorResponse } from '../errors/api-error-responses.decorator.js';
import { ShutdownState } from '../lifecycle/shutdown-state.js';
import { DatabaseHealthIndicator } from './database.health.js';
import { HealthCheckDto, HealthIndicatorDto } from './health-check.dto.js';

const DATABASE_PING_TIMEOUT_MS = 1000;

@Public()
@ApiExtraModels(HealthIndicatorDto)
@ApiResource('health', 'Liveness and readiness probes (no token needed)')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: DatabaseHealthIndicator,
    private readonly shutdown: ShutdownState,
  ) {}

  @Get('live')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({
    operationId: 'getLiveness',
    summary: 'Liveness: the process is up and serving HTTP',
    description: 'Checks nothing beyond the process itself, so that a slow database never gets it restarted.',
  })
  @ApiOkResponse({
    type: HealthCheckDto,
    description: 'The process is alive',
    example: { status: 'ok', info: {}, error: {}, details: {} },
  })
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'Readiness: the database answers a ping',
    description:
      'Pings PostgreSQL through the pool the requests use (one ping serves every check of the next second); ' +
      '503 while it does not answer, or once the service is shutting down.',
  })
  @ApiOkResponse({
    type: HealthCheckDto,
    description: 'Ready to serve requests',
    example: {
      status: 'ok',
      info: { database: { status: 'up', responseTime: 2 } },
      error: {},
      details: { database: { status: 'up', responseTime: 2 } },
    },
  })
  @ApiErrorResponse(HttpStatus.SERVICE_UNAVAILABLE)
  ready() {
    if (this.shutdown.isShuttingDown) {
      throw new ServiceUnavailableException('The service is shutting down');
    }
    return this.health.check([() => this.database.ping('database', DATABASE_PING_TIMEOUT_MS)]);
  }
}
