import { Global, Module } from '@nestjs/common';

import { MetricsServer } from './metrics-server.js';
import { MetricsController } from './metrics.controller.js';
import { Metrics } from './metrics.js';

/**
 * The instruments are always there (recording costs next to nothing);
 * `GET /metrics` answers 404 when METRICS_ENABLED=false, and is served on a
 * port of its own when METRICS_PORT is set (`MetricsServer`).
 */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [Metrics, MetricsServer],
  exports: [Metrics],
})
export class MetricsModule {}
