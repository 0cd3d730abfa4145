import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Redis } from 'ioredis';

import { freePort } from './service-process.js';

const REDIS_SERVER = 'redis-server';

export interface RedisServer {
  readonly port: number;
  /** `redis://` on loopback, with the password when there is one. */
  readonly url: string;
  /** Stops the server (SIGTERM; it keeps nothing), leaving its port to a later `start()`. */
  stop(): Promise<void>;
  /** Starts it again, empty, on the same port. */
  start(): Promise<void>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) it: a Redis that hangs rather than refuses. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void;
}

/**
 * A throw-away `redis-server` of the test's own on a free loopback port,
 * without persistence, that the test may stop, restart and freeze. The
 * shared rate-limit tests need a real Redis: without `redis-server` on the
 * PATH they fail, saying so (`apt-get install redis-server`).
 */
export async function startRedisServer({
  password,
  cluster = false,
}: {
  password?: string;
  /** A Redis Cluster of this one node, holding every slot: a script's keys must share one. */
  cluster?: boolean;
} = {}): Promise<RedisServer> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (password) {
    args.push('--requirepass', password);
  }
  // A cluster node writes its slots to a file and reads them back at start: a
  // directory of its own, removed with it, so that no node inherits another's.
  const clusterDir = cluster ? await mkdtemp(join(tmpdir(), 'plant-store-redis-')) : undefined;
  if (clusterDir) {
    args.push('--cluster-enabled', 'yes', '--cluster-config-file', join(clusterDir, 'nodes.conf'));
  }
  const begin = async (): Promise<ChildProcess> => {
    if (clusterDir) {
      // Empty, as a restart promises: a new node, with no slots yet.
      await mkdir(clusterDir, { recursive: true });
      await rm(join(clusterDir, 'nodes.conf'), { force: true });
    }
    const started = await launch(args, port, password);
    try {
      if (clusterDir) {
        await claimEverySlot(port, password);
      }
      return started;
    } catch (error) {
      // A server left running would keep the test process alive after its failure.
      await halt(started, 'SIGKILL');
      throw error;
    }
  };
  let server: ChildProcess;
  try {
    server = await begin();
  } catch (error) {
    if (clusterDir) {
      await rm(clusterDir, { recursive: true, force: true });
    }
    throw error;
  }
  return {
    port,
    url: password
      ? `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`
      : `redis://127.0.0.1:${port}`,
    stop: async () => {
      await halt(server, 'SIGTERM');
      if (clusterDir) {
        await rm(clusterDir, { recursive: true, force: true });
      }
    },
    start: async () => {
      server = await begin();
    },
    signal: (signal) => {
      server.kill(signal);
    },
  };
}

/** Stops the server (thawing it first, should it be frozen) and waits for it to exit. */
async function halt(server: ChildProcess, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  if (server.exitCode === null && server.signalCode === null) {
    const exited = once(server, 'exit');
    server.kill('SIGCONT');
    server.kill(signal);
    await exited;
  }
}

async function launch(args: string[], port: number, password?: string): Promise<ChildProcess> {
  const server = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const failed = new Promise<never>((_resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(
              `${REDIS_SERVER} is not installed: the shared rate-limit tests need it (apt-get install redis-server)`,
            )
          : error,
      ),
    );
    server.once('exit', (code) =>
      reject(new Error(`${REDIS_SERVER} exited with ${String(code)}:\n${output}`)),
    );
  });
  failed.catch(() => undefined);
  const deadline = Date.now() + 10_000;
  while (!(await Promise.race([answersPong(port, password), failed]))) {
    if (Date.now() > deadline) {
      server.kill('SIGKILL');
      throw new Error(`${REDIS_SERVER} did not answer PING on port ${port}:\n${output}`);
    }
    await sleep(25);
  }
  return server;
}

/** Whether the server answers PING (after AUTH, with a password), over a plain socket. */
function answersPong(port: number, password?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.setTimeout(1_000, () => socket.destroy());
    socket.on('connect', () => socket.write(`${password ? `AUTH ${password}\r\n` : ''}PING\r\n`));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes('+PONG') || reply.includes('-')) {
        socket.end();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(reply.includes('+PONG')));
  });
}

/** Makes the one node the whole cluster: it serves every slot once the cluster says it is ok. */
async function claimEverySlot(port: number, password?: string): Promise<void> {
  const client = new Redis({ port, host: '127.0.0.1', password, lazyConnect: true });
  try {
    await client.connect();
    await client.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    const deadline = Date.now() + 10_000;
    while (!String(await client.call('CLUSTER', 'INFO')).includes('cluster_state:ok')) {
      if (Date.now() > deadline) {
        throw new Error(`the one-node cluster on port ${port} never came up`);
      }
      await sleep(25);
    }
  } finally {
    client.disconnect();
  }
}
