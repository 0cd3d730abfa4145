import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A program a suite runs, and the Debian package that installs it. */
export interface SystemProgram {
  /** A name looked up on the PATH, or an absolute path. */
  readonly program: string;
  readonly aptPackage: string;
}

/**
 * `describe`, or `describe.skip` with a line saying why, when one of the
 * programs the suite runs (a PostgreSQL server, PgBouncer, Redis) is not
 * installed: a newcomer's `npm test` still passes. In CI (`CI=true`) the
 * suite always runs, and fails saying what to install, so that nothing is
 * passed over unseen.
 */
export function describeWith(programs: readonly SystemProgram[]): typeof describe {
  const missing = programs.filter(({ program }) => programPath(program) === undefined);
  if (missing.length === 0 || process.env.CI === 'true') {
    return describe;
  }
  process.stdout.write(
    `\n  SKIPPED (${missing.map(({ program }) => program).join(', ')} not installed): ` +
      `apt-get install ${missing.map(({ aptPackage }) => aptPackage).join(' ')}\n`,
  );
  return describe.skip;
}

/** Where a program is: on the PATH, or in /usr/sbin, where Debian puts daemons (off a user's PATH). */
export function programPath(program: string): string | undefined {
  const candidates = program.includes('/')
    ? [program]
    : [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin'].map((folder) => join(folder, program));
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export const REDIS: SystemProgram = { program: 'redis-server', aptPackage: 'redis-server' };
export const PGBOUNCER: SystemProgram = { program: 'pgbouncer', aptPackage: 'pgbouncer' };
export const POSTGRES_15: SystemProgram = {
  program: '/usr/lib/postgresql/15/bin/pg_basebackup',
  aptPackage: 'postgresql-15',
};
