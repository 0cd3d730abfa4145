import { execFile, spawn } from 'node:child_process';
import { access, chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import pg from 'pg';

import { freePort } from './service-process.js';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 (`apt-get install postgresql-15`): what the replica tests run. */
export const DEBIAN_POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

/** The unprivileged user PostgreSQL and PgBouncer run as when the tests run as root (they refuse root). */
export interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

export async function unprivileged(): Promise<RunAs> {
  if (userInfo().uid !== 0) {
    return {};
  }
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return { uid: await id('-u'), gid: await id('-g') };
  }
}

/** A folder of the test's own, writable by the user the servers run as; removed with `rm`. */
export async function workFolder(prefix: string, runAs: RunAs): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), prefix));
  await chmod(folder, 0o755);
  if (runAs.uid !== undefined && runAs.gid !== undefined) {
    await chown(folder, runAs.uid, runAs.gid);
  }
  return folder;
}

export interface DebianPostgres {
  readonly port: number;
  readonly dataDir: string;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`: trust on loopback, as initdb sets it. */
  url(database: string): string;
  start(): Promise<void>;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Runs one statement as the superuser, on `database` (`postgres` by default). */
  query<Row extends pg.QueryResultRow>(text: string, database?: string): Promise<Row[]>;
}

/**
 * A PostgreSQL server of the test's own from Debian's binaries, on a free
 * loopback port: a new cluster (`initdb`), or a hot standby of another
 * (`standbyOf`, made with `pg_basebackup -R`, streaming from it).
 */
export async function startDebianPostgres({
  folder,
  name,
  standbyOf,
}: {
  folder: string;
  name: string;
  standbyOf?: DebianPostgres;
}): Promise<DebianPostgres> {
  await access(join(DEBIAN_POSTGRES_BIN, 'postgres')).catch(() => {
    throw new Error(
      `Debian's PostgreSQL 15 is not installed (${DEBIAN_POSTGRES_BIN}): ` +
        'the replica tests need it (apt-get install postgresql-15)',
    );
  });
  const runAs = await unprivileged();
  const dataDir = join(folder, name);
  const port = await freePort();
  const binary = (program: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(join(DEBIAN_POSTGRES_BIN, program), args, {
        ...runAs,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let errors = '';
      child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`${program} exited with ${String(code)}: ${errors}`)),
      );
    });
  if (standbyOf) {
    await binary('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(standbyOf.port), '-U', 'postgres'],
      // A fast checkpoint: the default spreads it over minutes.
      ...['-D', dataDir, '-R', '-X', 'stream', '--checkpoint=fast'],
    ]);
  } else {
    await binary('initdb', [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--locale=C',
    ]);
  }
  const server: DebianPostgres = {
    port,
    dataDir,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () =>
      binary('pg_ctl', [
        ...['start', '-D', dataDir, '-w', '-l', join(folder, `${name}.log`)],
        // A standby needs at least the primary's max_connections: both keep the default.
        '-o',
        `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${folder} -c fsync=off`,
      ]),
    stop: (mode = 'fast') => binary('pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w']),
    query: async <Row extends pg.QueryResultRow>(text: string, database = 'postgres') => {
      const client = new pg.Client({ connectionString: server.url(database) });
      await client.connect();
      try {
        return (await client.query<Row>(text)).rows;
      } finally {
        await client.end();
      }
    },
  };
  await server.start();
  return server;
}

/** Stops the servers (ignoring those already stopped) and removes their folder. */
export async function removeServers(folder: string, ...servers: Array<DebianPostgres | undefined>) {
  for (const server of servers) {
    await server?.stop('immediate').catch(() => undefined);
  }
  await rm(folder, { recursive: true, force: true });
}
