/**
 * What the bench (run.js) and the soak (soak.js) both do around the processes they
 * measure: a database to run them on, a memory cgroup to run them in, free ports,
 * and starting and stopping them.
 */
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';

import { EmbeddedPostgres } from '../dist/core/database/embedded-postgres.js';

/**
 * DATABASE_URL, whose database's name must say bench or test (its plants are
 * deleted), or an embedded PostgreSQL named `database`, durable as in production
 * (fsync and synchronous commit on), removed by `stop()`.
 */
export async function startDatabase(database, settings = {}) {
  if (process.env.DATABASE_URL) {
    const name = new URL(process.env.DATABASE_URL).pathname.slice(1);
    if (!/bench|test/i.test(name)) {
      throw new Error(
        `Refusing to run on "${name}": its plants are deleted; use a database named *bench* or *test*`,
      );
    }
    return { url: process.env.DATABASE_URL, stop: async () => undefined };
  }
  const dataDir = join(os.tmpdir(), `${database.replaceAll('_', '-')}-${process.pid}`);
  const server = await EmbeddedPostgres.start({ dataDir, database, settings });
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
      await rm(`${dataDir}.password`, { force: true });
    },
  };
}

/**
 * A cgroup-v1 memory cgroup of `limitBytes` (as root), as a pod's memory limit:
 * a process joins it by writing its pid to `${path}/tasks`.
 */
export async function createMemoryCgroup(name, limitBytes) {
  const path = `/sys/fs/cgroup/memory/${name}-${process.pid}`;
  try {
    await mkdir(path);
    await writeFile(join(path, 'memory.limit_in_bytes'), String(limitBytes));
  } catch (error) {
    throw new Error(
      `a memory limit needs root and cgroup v1's memory controller at /sys/fs/cgroup/memory (${error.message})`,
      { cause: error },
    );
  }
  const read = (file) => readFile(join(path, file), 'utf8');
  return {
    path,
    usageBytes: async () => Number(await read('memory.usage_in_bytes')),
    resetPeak: () => writeFile(join(path, 'memory.max_usage_in_bytes'), '0'),
    peakMb: async () => Math.round(Number(await read('memory.max_usage_in_bytes')) / 2 ** 20),
    /** The cgroup's anonymous memory and page cache (memory.stat). */
    stat: async () => {
      const text = await read('memory.stat');
      const value = (key) => Number(new RegExp(`^total_${key} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
      return { rssBytes: value('rss'), cacheBytes: value('cache') };
    },
    oomKills: async () => Number(/oom_kill (\d+)/.exec(await read('memory.oom_control'))?.[1] ?? 0),
    remove: () => rmdir(path).catch(() => undefined),
  };
}

/** `256M`, `1G` or a number of bytes, in bytes; `undefined` for anything else. */
export function byteSize(text) {
  const match = /^(\d+)([KMG]?)$/i.exec(text);
  return match ? Number(match[1]) * 1024 ** ' KMG'.indexOf(match[2].toUpperCase() || ' ') : undefined;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Throws, naming the child (`child.target`) and its log (`child.logFile`), once it has exited. */
export function assertRunning(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    throw new Error(
      `The ${child.target} exited (${child.signalCode ?? `code ${child.exitCode}`}); its log: ${child.logFile}`,
    );
  }
}

/** SIGTERM, and SIGKILL after 15 s; resolves once the child has exited. */
export async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killed);
}
