import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

import { freePort } from '../../src/core/common/free-port.js';

export { freePort };

export interface ServiceProcess {
  readonly process: ChildProcess;
  /** The service's base URL, on loopback. */
  readonly url: string;
  /** Everything the process wrote so far, stdout and stderr together. */
  output(): string;
  /** Sends the signal (SIGTERM by default) and answers the exit code (null when a signal killed it). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

interface StartOptions {
  readonly cwd?: string;
  readonly timeoutMs?: number;
  /** Where the service should listen; a free port by default. */
  readonly port?: number;
  /** The built entry to run: this repository's `dist/main.js` by default. */
  readonly main?: string;
}

/**
 * Runs the compiled service (`dist/main.js`, built by `npm test`) as a child
 * process, exactly as it runs in production, and waits until it answers
 * `/health/live`.
 */
export async function startService(
  env: Record<string, string | undefined>,
  options: StartOptions = {},
): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const { child, output, exited } = spawnService({ ...env, PORT: String(port) }, options.cwd, options.main);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);

  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `service exited with ${String(child.exitCode ?? child.signalCode)} before it answered:\n${output()}`,
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not answer in time:\n${output()}`);
    }
    const live = await fetch(`${url}/health/live`).then(
      (response) => response.ok,
      () => false,
    );
    if (live) {
      break;
    }
    await sleep(50);
  }

  return {
    process: child,
    url,
    output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) {
        return (await exited)[0];
      }
      child.kill(signal);
      return exitWithin(child, exited, output, `${EXIT_TIMEOUT_MS} ms after ${signal}`);
    },
  };
}

/**
 * How long a service may take to exit once stopped, or when it is expected to
 * refuse to start: its own shutdown is bounded by 10 s (SHUTDOWN_TIMEOUT_MS).
 */
const EXIT_TIMEOUT_MS = 30_000;

/** Runs the compiled `webhooks:requeue` command, as an operator would, on the test database. */
export function requeue(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['dist/core/webhooks/requeue.js', ...args],
      { env: { PATH: process.env.PATH, DATABASE_URL: process.env.DATABASE_URL, NODE_ENV: 'test' } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Runs the compiled service expecting it to refuse to start; answers its exit
 * code and output. One still running after EXIT_TIMEOUT_MS is killed, and fails.
 */
export async function failedStart(
  env: Record<string, string | undefined>,
  options: { cwd?: string } = {},
): Promise<{ code: number | null; output: string }> {
  const { child, output, exited } = spawnService({ PORT: '0', ...env }, options.cwd);
  const code = await exitWithin(child, exited, output, `after ${EXIT_TIMEOUT_MS} ms`);
  return { code, output: output() };
}

/**
 * Waits for the child's exit code. One still running after EXIT_TIMEOUT_MS is
 * killed (SIGKILL) and the wait fails, with its output: a process left behind
 * would keep Jest from exiting.
 */
async function exitWithin(
  child: ChildProcess,
  exited: Promise<[number | null, NodeJS.Signals | null]>,
  output: () => string,
  when: string,
): Promise<number | null> {
  let killed = false;
  const deadline = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, EXIT_TIMEOUT_MS);
  const [code] = await exited.finally(() => clearTimeout(deadline));
  if (killed) {
    throw new Error(`service was still running ${when}, killed:\n${output()}`);
  }
  return code;
}

function spawnService(
  env: Record<string, string | undefined>,
  cwd?: string,
  main = `${process.cwd()}/dist/main.js`,
) {
  const child = spawn(process.execPath, [main], {
    cwd: cwd ?? process.cwd(),
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, output: () => text, exited };
}
