import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';

import { Metrics } from '../core/metrics/metrics.js';

/** The plants' own instruments, in the service's registry (served at /metrics). */
@Injectable()
export class PlantsMetrics {
  readonly created: Counter;

  constructor({ registry }: Metrics) {
    this.created = new Counter({
      name: 'plants_created_total',
      help: 'Plants stored (an identical create sent again is not counted)',
      registers: [registry],
    });
  }
}
