import { Injectable } from '@nestjs/common';
import { type HealthCheckAttempt, HealthIndicatorService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';

/**
 * Pings PostgreSQL through the service's own pool, so "ready" means the
 * connections the requests use can reach the database.
 */
@Injectable()
export class DatabaseHealthIndicator {
  constructor(
    private readonly dataSource: DataSource,
    private readonly indicators: HealthIndicatorService,
  ) {}

  ping(key: string, timeoutMs: number): HealthCheckAttempt {
    return this.indicators
      .check(key)
      .attempt(async () => {
        await this.dataSource.query('SELECT 1');
      })
      .withTimeout(timeoutMs);
  }
}
