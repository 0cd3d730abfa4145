import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** What becomes of a webhook delivery attempt. */
const WEBHOOK_OUTCOMES = ['delivered', 'failed', 'dead'] as const;

/**
 * The service's Prometheus metrics, in a registry of its own: HTTP requests
 * by route and status, webhook deliveries and the process. A module
 * registers its own instruments in `registry` (the database pool, a
 * resource's counters).
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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Every outcome is served from the start, at 0: a series that appears with its first
    // increment shows Prometheus no increase (rate() and increase() need a sample before
    // it), so the first delivery given up would raise no alert.
    for (const outcome of WEBHOOK_OUTCOMES) {
      this.webhookDeliveries.inc({ outcome }, 0);
    }
  }
}
