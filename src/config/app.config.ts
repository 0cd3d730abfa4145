import { registerAs, type ConfigType } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

import { validateEnv } from './validate-env.js';

export const NODE_ENVIRONMENTS = ['development', 'production', 'test'] as const;
export type NodeEnvironment = (typeof NODE_ENVIRONMENTS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

class AppEnvironment {
  @IsOptional()
  @IsIn(NODE_ENVIRONMENTS)
  NODE_ENV?: NodeEnvironment;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @IsString()
  HOST?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL?: LogLevel;
}

export const appConfig = registerAs('app', () => {
  const env = validateEnv(AppEnvironment);
  const nodeEnv = env.NODE_ENV ?? 'development';
  return {
    nodeEnv,
    isProduction: nodeEnv === 'production',
    port: env.PORT ?? 3000,
    host: env.HOST || '127.0.0.1',
    logLevel: env.LOG_LEVEL ?? 'info',
  };
});

export type AppConfig = ConfigType<typeof appConfig>;
