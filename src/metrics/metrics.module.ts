import { Global, Module } from '@nestjs/common';
import { ConditionalModule } from '@nestjs/config';

import { MetricsController } from './metrics.controller.js';
import { Metrics } from './metrics.js';

/** `GET /metrics`, unless METRICS_ENABLED=false. */
@Module({ controllers: [MetricsController] })
class MetricsEndpointModule {}

/** The instruments are always there (recording costs next to nothing); the endpoint is optional. */
@Global()
@Module({
  imports: [ConditionalModule.registerWhen(MetricsEndpointModule, (env) => env.METRICS_ENABLED !== 'false')],
  providers: [Metrics],
  exports: [Metrics],
})
export class MetricsModule {}
