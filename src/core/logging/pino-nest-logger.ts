import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Nest calls `log(message, context)` and `error(message, stack, context)`; the context becomes a field. */
export class PinoNestLogger implements LoggerService {
  readonly log = this.at('info');
  readonly error = this.at('error');
  readonly warn = this.at('warn');
  readonly debug = this.at('debug');
  readonly verbose = this.at('trace');
  readonly fatal = this.at('fatal');

  constructor(private readonly logger: Logger) {}

  private at(level: Level): (message: unknown, ...params: unknown[]) => void {
    return (message, ...params) => this.write(level, message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) {
      return;
    }
    const context = typeof params.at(-1) === 'string' ? (params.pop() as string) : undefined;
    const fields: Record<string, unknown> = { context };
    const [detail] = params;
    if (typeof detail === 'string') {
      fields.stack = detail;
    } else if (detail instanceof Error) {
      fields.err = detail;
    }
    if (message instanceof Error) {
      this.logger[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ ...fields, ...message });
    } else {
      this.logger[level](fields, String(message));
    }
  }
}
