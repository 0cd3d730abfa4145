import { readdir } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { MigrationInterface } from 'typeorm';

export type MigrationClass = new () => MigrationInterface;

const HERE = fileURLToPath(import.meta.url);
/** `src/` from the sources (the tests), `dist/` once built, bundled or not. */
const CODE_ROOT = codeRoot(HERE);
const EXTENSION = extname(HERE);
/** Every module's entities, by file name: for the TypeORM CLI, where no module registers them. */
export const ENTITY_FILES = join(CODE_ROOT, '**', `*.entity${EXTENSION}`);

/** `<timestamp>-<Name>.ts`, as `npm run migration:generate` names them. */
const MIGRATION_FILE = /^(\d{13,})-[\w-]+$/;

/**
 * The files of every `migrations/` folder under the code's root, in timestamp order: a resource adds
 * a migration by adding a file, and nothing lists them. From the sources, `test/` is searched too,
 * for resources that exist only in the tests.
 */
export async function discoverMigrations(
  roots: readonly string[] = defaultRoots(),
): Promise<MigrationClass[]> {
  const files: Array<{ timestamp: bigint; path: string }> = [];
  for (const root of roots) {
    for (const path of await migrationFiles(root)) {
      const timestamp = MIGRATION_FILE.exec(basename(path, EXTENSION))![1];
      files.push({ timestamp: BigInt(timestamp), path });
    }
  }
  files.sort((a, b) =>
    a.timestamp === b.timestamp ? a.path.localeCompare(b.path) : a.timestamp < b.timestamp ? -1 : 1,
  );
  const migrations: MigrationClass[] = [];
  for (const { path } of files) {
    const exported = Object.values((await import(pathToFileURL(path).href)) as Record<string, unknown>);
    const classes = exported.filter(isMigrationClass);
    if (classes.length !== 1) {
      throw new Error(`${path} must export exactly one migration class, not ${classes.length}`);
    }
    migrations.push(classes[0]);
  }
  return migrations;
}

function defaultRoots(): string[] {
  return EXTENSION === '.ts' ? [CODE_ROOT, join(CODE_ROOT, '../test')] : [CODE_ROOT];
}

async function migrationFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter(
      (entry) =>
        entry.isFile() &&
        basename(entry.parentPath) === 'migrations' &&
        extname(entry.name) === EXTENSION &&
        !entry.name.endsWith(`.d${EXTENSION}`) &&
        MIGRATION_FILE.test(basename(entry.name, EXTENSION)) &&
        !entry.parentPath.split(/[\\/]/).includes('node_modules'),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

function codeRoot(file: string): string {
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    if (basename(folder) === 'dist' || basename(folder) === 'src') {
      return folder;
    }
  }
  throw new Error(`${file} is neither under src/ nor under dist/`);
}

function isMigrationClass(value: unknown): value is MigrationClass {
  return (
    typeof value === 'function' && typeof (value.prototype as { up?: unknown } | undefined)?.up === 'function'
  );
}
