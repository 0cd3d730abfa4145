import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Counter } from 'prom-client';

import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { Metrics } from '../metrics/metrics.js';

const SAMPLE_INTERVAL_MS = 100;

/**
 * While the event loop runs more than `HTTP_SHED_LAG_MS` late, a request has already waited that long
 * in its socket; a 503 with `Retry-After` spares the work so that the loop catches up
 * (docs/operations.md#overload). An overdue timer counts as late already, so the first request read
 * after a long stall is turned away before the timer has had its turn.
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
