import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';

/** What pg's Pool tells about its connections. */
interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/**
 * The service's Prometheus metrics, in a registry of its own: HTTP requests
 * by route and status, the database pool, webhook deliveries and the
 * process. A resource registers its own instruments in `registry`.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to the end of its answer, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: delivered, failed (to be retried), dead (given up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(dataSource: DataSource) {
    collectDefaultMetrics({ register: this.registry });
    const pool = (): PoolCounts | undefined =>
      dataSource.isInitialized
        ? ((dataSource.driver as unknown as { master?: PoolCounts }).master ?? undefined)
        : undefined;
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections, by state: in use, idle, and requests waiting for one',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const counts = pool();
        this.set({ state: 'in_use' }, counts ? counts.totalCount - counts.idleCount : 0);
        this.set({ state: 'idle' }, counts?.idleCount ?? 0);
        this.set({ state: 'waiting' }, counts?.waitingCount ?? 0);
      },
    });
  }
}
