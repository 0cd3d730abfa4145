import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

const LISTENING = /listening on (http:\/\/[^\s"]+)/;

export interface ServiceProcess {
  readonly process: ChildProcess;
  /** The base URL the service announced. */
  readonly url: string;
  /** Everything the process wrote so far, stdout and stderr together. */
  output(): string;
  /** SIGTERM, then the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs the compiled service (`dist/main.js`, built by `npm test`) as a child
 * process, as it runs in production, and waits until it listens.
 */
export async function startService(
  env: Record<string, string | undefined>,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [`${process.cwd()}/dist/main.js`], {
    cwd: options.cwd ?? process.cwd(),
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`service did not start:\n${output}`)),
      options.timeoutMs ?? 30_000,
    );
    const check = () => {
      const match = LISTENING.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${String(code)} before listening:\n${output}`));
    });
  });

  return {
    process: child,
    url,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
      }
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** Runs the compiled service expecting it to refuse to start; answers its exit code and output. */
export async function failedStart(
  env: Record<string, string | undefined>,
  options: { cwd?: string } = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [`${process.cwd()}/dist/main.js`], {
    cwd: options.cwd ?? process.cwd(),
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}
