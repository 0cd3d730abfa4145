import type { Logger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';

/** Never logs query texts or their parameters: parameters carry request data. */
export class TypeOrmNestLogger implements TypeOrmLogger {
  constructor(private readonly logger: Pick<Logger, 'log' | 'warn' | 'error' | 'debug'>) {}

  logQuery(): void {}

  logQueryError(error: string | Error): void {
    this.logger.debug?.(`Query failed: ${error instanceof Error ? error.message : error}`);
  }

  logQuerySlow(time: number): void {
    this.logger.warn(`Slow query: ${time} ms`);
  }

  logSchemaBuild(message: string): void {
    this.logger.log(message);
  }

  logMigration(message: string): void {
    this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') {
      this.logger.warn(String(message));
    } else {
      this.logger.log(String(message));
    }
  }
}
