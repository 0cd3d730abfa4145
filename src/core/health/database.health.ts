import { Injectable } from '@nestjs/common';
import { type HealthCheckAttempt, HealthIndicatorService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';

/** The probe is public: without a cache, each unauthenticated call would cost a query. */
export const READINESS_CACHE_MS = 1_000;

/**
 * Through the service's own pool, so "ready" means the requests' connections reach the database. Checks
 * arriving while a ping runs wait for it rather than send their own.
 */
@Injectable()
export class DatabaseHealthIndicator {
  private recent?: { readonly at: number; readonly ping: Promise<void> };

  constructor(
    private readonly dataSource: DataSource,
    private readonly indicators: HealthIndicatorService,
  ) {}

  ping(key: string, timeoutMs: number): HealthCheckAttempt {
    return this.indicators
      .check(key)
      .attempt(() => this.sharedPing())
      .withTimeout(timeoutMs);
  }

  private sharedPing(): Promise<void> {
    const now = Date.now();
    if (!this.recent || now - this.recent.at >= READINESS_CACHE_MS) {
      const ping = this.dataSource.query('SELECT 1').then(() => undefined);
      // Each check handles the outcome; the shared promise itself must not count as unhandled.
      ping.catch(() => undefined);
      this.recent = { at: now, ping };
    }
    return this.recent.ping;
  }
}
