import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';

import { Metrics } from '../metrics/metrics.js';
import { DatabasePools } from './database-pools.js';

/** `db_pool_connections`: each pool's connections by state, the primary's and the replicas' apart. */
@Injectable()
export class DatabasePoolMetrics {
  constructor({ registry }: Metrics, pools: DatabasePools) {
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections, by pool (primary, replica) and state: in use, idle, and requests waiting for one',
      labelNames: ['pool', 'state'] as const,
      registers: [registry],
      collect() {
        this.reset();
        const sums = new Map<string, { inUse: number; idle: number; waiting: number }>([
          ['primary', { inUse: 0, idle: 0, waiting: 0 }],
        ]);
        for (const { role, total, idle, waiting } of pools.counts()) {
          const sum = sums.get(role) ?? { inUse: 0, idle: 0, waiting: 0 };
          sum.inUse += total - idle;
          sum.idle += idle;
          sum.waiting += waiting;
          sums.set(role, sum);
        }
        for (const [pool, { inUse, idle, waiting }] of sums) {
          this.set({ pool, state: 'in_use' }, inUse);
          this.set({ pool, state: 'idle' }, idle);
          this.set({ pool, state: 'waiting' }, waiting);
        }
      },
    });
  }
}
