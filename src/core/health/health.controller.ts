import { Controller, Get, HttpStatus, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';

import { Public } from '../auth/public.decorator.js';
import { ApiResource } from '../openapi/api-resource.decorator.js';
import { ApiErrorResponse } from '../errors/api-error-responses.decorator.js';
import { ShutdownState } from '../lifecycle/shutdown-state.js';
import { DatabaseHealthIndicator } from './database.health.js';

const DATABASE_PING_TIMEOUT_MS = 1000;

@Public()
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
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness: the process is up and serving HTTP' })
  @ApiOkResponse({ description: 'The process is alive' })
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: the database answers a ping' })
  @ApiOkResponse({ description: 'Ready to serve requests' })
  @ApiErrorResponse(HttpStatus.SERVICE_UNAVAILABLE)
  ready() {
    if (this.shutdown.isShuttingDown) {
      throw new ServiceUnavailableException('The service is shutting down');
    }
    return this.health.check([() => this.database.ping('database', DATABASE_PING_TIMEOUT_MS)]);
  }
}
