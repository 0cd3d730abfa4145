import { registerAs, type ConfigType } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsBooleanString, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

import { parseBooleanEnv, validateEnv } from './validate-env.js';

class DatabaseEnvironment {
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @IsBooleanString()
  DATABASE_MIGRATIONS_RUN?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE?: number;

  @IsOptional()
  @IsString()
  EMBEDDED_POSTGRES_DIR?: string;
}

export const databaseConfig = registerAs('database', () => {
  const env = validateEnv(DatabaseEnvironment);
  return {
    /** Unset means: start an embedded PostgreSQL (refused in production). */
    url: env.DATABASE_URL || undefined,
    runMigrations: parseBooleanEnv(env.DATABASE_MIGRATIONS_RUN, true),
    poolSize: env.DATABASE_POOL_SIZE ?? 10,
    embeddedDataDir: env.EMBEDDED_POSTGRES_DIR || '.data/postgres',
  };
});

export type DatabaseConfig = ConfigType<typeof databaseConfig>;
