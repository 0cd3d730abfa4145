import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { removeServers, unprivileged, workFolder } from './debian-postgres.js';
import { freePort } from './service-process.js';
import { programPath } from './system-packages.js';

export interface PgBouncer {
  /** The database behind it, as the service connects to it: through the pooler. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Debian's PgBouncer (`apt-get install pgbouncer`) in transaction pooling in
 * front of the database `databaseUrl` names, as docs/operations.md says to run
 * it: 20 server connections, and the startup parameters the service sends
 * ignored (their values belong on the database role behind a pooler).
 */
export async function startPgBouncer(databaseUrl: string): Promise<PgBouncer> {
  const target = new URL(databaseUrl);
  const database = target.pathname.slice(1);
  const runAs = await unprivileged();
  const folder = await workFolder('plant-store-pgbouncer-', runAs);
  const port = await freePort();
  const server = [
    `host=${target.hostname}`,
    `port=${target.port || '5432'}`,
    `dbname=${database}`,
    `user=${decodeURIComponent(target.username)}`,
    ...(target.password ? [`password=${decodeURIComponent(target.password)}`] : []),
  ].join(' ');
  const config = join(folder, 'pgbouncer.ini');
  await writeFile(
    config,
    [
      '[databases]',
      `${database} = ${server}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${folder}`,
      // Clients log in as any user: the server connection's own user and password are above.
      'auth_type = any',
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits,options,statement_timeout,idle_in_transaction_session_timeout',
      `logfile = ${join(folder, 'pgbouncer.log')}`,
      `pidfile = ${join(folder, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const pooler = spawn(programPath('pgbouncer') ?? 'pgbouncer', [config], {
    ...runAs,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  pooler.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const failed = new Promise<never>((_resolve, reject) => {
    pooler.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error('pgbouncer is not installed: the pooler tests need it (apt-get install pgbouncer)')
          : error,
      ),
    );
    pooler.once('exit', (code) => reject(new Error(`pgbouncer exited with ${String(code)}: ${output}`)));
  });
  failed.catch(() => undefined);
  const stop = async () => {
    await halt(pooler);
    await removeServers(folder);
  };
  try {
    const deadline = Date.now() + 10_000;
    while (!(await Promise.race([listening(port), failed]))) {
      if (Date.now() > deadline) {
        throw new Error(`pgbouncer does not listen on port ${port}: ${output}`);
      }
      await sleep(25);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${port}`;
  return { url: url.toString(), stop };
}

async function halt(pooler: ChildProcess): Promise<void> {
  if (pooler.exitCode === null && pooler.signalCode === null) {
    const exited = once(pooler, 'exit');
    pooler.kill('SIGINT');
    await exited;
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.end(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
