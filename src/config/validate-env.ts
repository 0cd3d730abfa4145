import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

type EnvironmentClass<T> = new () => T;

/**
 * Validates the environment variables one feature reads, against a class
 * decorated with class-validator rules, and fails start-up with every problem
 * listed at once.
 */
export function validateEnv<T extends object>(
  schema: EnvironmentClass<T>,
  env: NodeJS.ProcessEnv = process.env,
): T {
  const values = plainToInstance(schema, { ...env }, { excludeExtraneousValues: false });
  const errors = validateSync(values, { skipMissingProperties: false, forbidUnknownValues: true });
  if (errors.length > 0) {
    const problems = errors.flatMap((error) =>
      Object.values(error.constraints ?? {}).map((message) => `  - ${message}`),
    );
    throw new InvalidConfigurationError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  return values;
}

export class InvalidConfigurationError extends Error {
  override readonly name = 'InvalidConfigurationError';
}

/** Reads an optional boolean variable written as `true`/`false` (or `1`/`0`). */
export function parseBooleanEnv(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') {
    return fallback;
  }
  return value === 'true' || value === '1';
}

/** Splits a comma-separated variable into its trimmed, non-empty entries. */
export function parseListEnv(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}
