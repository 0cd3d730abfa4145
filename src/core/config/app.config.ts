import { registerAs, type ConfigType } from '@nestjs/config';
import { IsIn, IsOptional, IsString } from 'class-validator';

import { Environment, IntegerVariable, readEnvironment } from './environment.js';

export const NODE_ENVIRONMENTS = ['development', 'production', 'test'] as const;
export type NodeEnvironment = (typeof NODE_ENVIRONMENTS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The process: where it listens, how it logs, how long it drains. */
@Environment()
export class AppEnvironment {
  @IsOptional()
  @IsIn(NODE_ENVIRONMENTS)
  NODE_ENV: NodeEnvironment = 'development';

  @IntegerVariable(0, 65535)
  PORT = 3000;

  @IsOptional()
  @IsString()
  HOST = '127.0.0.1';

  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  /** No default of its own: pretty in development, JSON lines otherwise. */
  @IsOptional()
  @IsIn(LOG_FORMATS)
  LOG_FORMAT?: LogFormat;

  /** How long a shutdown waits for requests in flight before cutting their connections. */
  @IntegerVariable(0, 600_000)
  SHUTDOWN_TIMEOUT_MS = 10_000;
}

export const appConfig = registerAs('app', () => {
  const env = readEnvironment(AppEnvironment);
  return {
    nodeEnv: env.NODE_ENV,
    isProduction: env.NODE_ENV === 'production',
    port: env.PORT,
    host: env.HOST,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT ?? (env.NODE_ENV === 'development' ? 'pretty' : 'json'),
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
  };
});

export type AppConfig = ConfigType<typeof appConfig>;
