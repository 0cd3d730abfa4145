import { Controller, Get, Inject, NotFoundException, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';

import { Public } from '../auth/public.decorator.js';
import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { Metrics } from './metrics.js';

/**
 * Prometheus scrapes this; it is no part of the API, so not in the OpenAPI
 * document. With METRICS_PORT set it is served there instead (`MetricsServer`);
 * in production, without METRICS_PORT, only when METRICS_ON_API_PORT asks.
 */
@Public()
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    @Inject(httpConfig.KEY) private readonly config: HttpConfig,
  ) {}

  @Get()
  scrape(@Res({ passthrough: true }) response: Response): Promise<string> {
    if (
      !this.config.metricsEnabled ||
      this.config.metricsPort !== undefined ||
      !this.config.metricsOnApiPort
    ) {
      // Switched off, served elsewhere, or kept off the API's port: the route answers as if it did not exist.
      throw new NotFoundException('Cannot GET /metrics');
    }
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    return this.metrics.registry.metrics();
  }
}
