import { applyDecorators } from '@nestjs/common';
import { plainToInstance, Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Max, Min, registerDecorator, validateSync } from 'class-validator';

import { InvalidConfigurationError } from './configuration-error.js';

/** One concern's variables: rules as decorators, defaults as initial values, `crossCheck` across them. */
export interface EnvironmentRules<T extends object = object> {
  new (): T;
  crossCheck?(env: Readonly<Record<string, unknown>>): string[];
}

const concerns = new Set<EnvironmentRules>();

/** Registers a concern's variables: every registered concern is checked whenever any is read. */
export function Environment(): ClassDecorator {
  return (target) => {
    concerns.add(target as unknown as EnvironmentRules);
  };
}

export function environmentConcerns(): ReadonlySet<EnvironmentRules> {
  return concerns;
}

/** Checks every concern together, so that a bad start names every problem; an empty variable is unset. */
export function readEnvironment<T extends object>(
  concern: EnvironmentRules<T>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): T {
  const given = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const problems: string[] = [];
  const merged: Record<string, unknown> = {};
  let requested: T | undefined;
  for (const rules of new Set([...concerns, concern])) {
    const values = plainToInstance(rules, given, { excludeExtraneousValues: false });
    for (const error of validateSync(values, { stopAtFirstError: true, forbidUnknownValues: true })) {
      problems.push(...Object.values(error.constraints ?? {}));
    }
    Object.assign(merged, values);
    if (rules === (concern as EnvironmentRules)) {
      requested = values as T;
    }
  }
  for (const rules of new Set([...concerns, concern])) {
    problems.push(...(rules.crossCheck?.(merged) ?? []));
  }
  if (problems.length > 0) {
    throw InvalidConfigurationError.listing(problems);
  }
  return requested!;
}

/** An integer variable within bounds. */
export function IntegerVariable(minimum: number, maximum = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  return applyDecorators(
    IsInt(),
    Max(maximum),
    Min(minimum),
    Type(() => Number),
    IsOptional(),
  );
}

/** A boolean variable, written `true`/`false` (or `1`/`0`). */
export function BooleanVariable(): PropertyDecorator {
  return applyDecorators(
    IsBoolean({ message: '$property must be true or false' }),
    Transform(({ value }: { value: unknown }) =>
      value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value,
    ),
    IsOptional(),
  );
}

/** A rule of one's own: `problems` answers what is wrong with the value, if anything. */
export function VariableRule(name: string, problems: (value: unknown) => string[]): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: ({ value }) => problems(value).join('; ') },
      validator: { validate: (value: unknown) => problems(value).length === 0 },
    });
}

/** Where plain HTTP crosses no network; a host like `127.0.0.1.example.com` is not loopback. */
export function isLoopbackUrl(url: string): boolean {
  const host = URL.parse(url)?.hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host ?? '');
}

/** The entries of a comma-separated variable, trimmed; a value that is no string has none. */
export function parseListEnv(value: unknown): string[] {
  return (typeof value === 'string' ? value : '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/** Which entries fail `accepted` (`entries 1, 3 are not`), by position: a message must not echo them. */
export function entriesThatAreNot(list: unknown, accepted: (entry: string) => boolean): string | undefined {
  const positions = parseListEnv(list).flatMap((entry, index) => (accepted(entry) ? [] : [index + 1]));
  if (positions.length === 0) {
    return undefined;
  }
  return positions.length === 1 ? `entry ${positions[0]} is not` : `entries ${positions.join(', ')} are not`;
}
