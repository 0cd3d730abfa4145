import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Counter } from 'prom-client';

import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { Metrics } from '../metrics/metrics.js';

/** How often the event loop's lateness is measured. */
const SAMPLE_INTERVAL_MS = 100;

/**
 * Turns requests away, at once and cheaply, while the process cannot keep
 * up: when its event loop runs more than `HTTP_SHED_LAG_MS` late. A request
 * then waits that long in its socket before it is even read, and one served
 * anyway would be answered later still; a 503 with `Retry-After` lets the
 * client (or its load balancer) retry here or elsewhere, and costs far less
 * than the work it spares, so the loop catches up. Health checks and metrics
 * are always served: an overloaded instance is not a dead one.
 *
 * The loop's lateness is a timer's, every 100 ms: how late it fired, or, while
 * it is overdue, how overdue it is now; so the first request read after a long
 * stall is already turned away, before the timer has had its turn.
 */
@Injectable()
export class LoadShedder implements OnModuleDestroy {
  private readonly logger = new Logger(LoadShedder.name);
  private readonly maxLagMs: number;
  private readonly timer?: NodeJS.Timeout;
  private readonly shedCounter: Counter;
  private due = performance.now() + SAMPLE_INTERVAL_MS;
  private lastLagMs = 0;
  /** Requests turned away since shedding began; undefined while it has not. */
  private shedding?: { since: number; count: number };

  constructor(@Inject(httpConfig.KEY) http: HttpConfig, metrics: Metrics) {
    this.maxLagMs = http.shedLagMs;
    this.shedCounter = new Counter({
      name: 'http_requests_shed_total',
      help: 'Requests answered 503 at once because the event loop ran late (HTTP_SHED_LAG_MS)',
      registers: [metrics.registry],
    });
    if (this.maxLagMs > 0) {
      this.timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS).unref();
    }
  }

  /** How late the event loop runs now, in milliseconds. */
  get lagMs(): number {
    return Math.max(this.lastLagMs, performance.now() - this.due);
  }

  /** Whether to turn this request away; counts it when so. */
  shouldShed(): boolean {
    if (this.maxLagMs === 0 || this.lagMs <= this.maxLagMs) {
      return false;
    }
    this.shedCounter.inc();
    if (this.shedding) {
      this.shedding.count++;
    } else {
      this.shedding = { since: performance.now(), count: 1 };
      this.logger.warn(
        `The event loop runs ${Math.round(this.lagMs)} ms late (HTTP_SHED_LAG_MS=${this.maxLagMs}): answering 503 until it catches up`,
      );
    }
    return true;
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const now = performance.now();
    this.lastLagMs = Math.max(0, now - this.due);
    this.due = now + SAMPLE_INTERVAL_MS;
    if (this.shedding && this.lastLagMs <= this.maxLagMs) {
      const { since, count } = this.shedding;
      this.shedding = undefined;
      this.logger.log(
        `The event loop caught up: ${count === 1 ? '1 request was' : `${count} requests were`} answered 503 over ${Math.round(now - since)} ms`,
      );
    }
  }
}
