import { Global, Module } from '@nestjs/common';

import { MetricsController } from './metrics.controller.js';
import { Metrics } from './metrics.js';

/**
 * The instruments are always there (recording costs next to nothing);
 * `GET /metrics` answers 404 when METRICS_ENABLED=false.
 */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [Metrics],
  exports: [Metrics],
})
export class MetricsModule {}
