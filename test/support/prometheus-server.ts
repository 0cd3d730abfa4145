import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { freePort } from './service-process.js';

const PROMETHEUS = 'prometheus';

/** Why a test that needs Prometheus cannot run: undefined when Debian's `prometheus` is on the PATH. */
export function prometheusMissing(): string | undefined {
  const probe = spawnSync(PROMETHEUS, ['--version'], { stdio: 'ignore' });
  return probe.error
    ? `${PROMETHEUS} is not installed: the monitoring test runs a real Prometheus (apt-get install prometheus)`
    : undefined;
}

/** What Prometheus's HTTP API answers (`/api/v1/...`). */
export interface ApiAnswer<T> {
  readonly status: 'success' | 'error';
  readonly data: T;
  readonly errorType?: string;
  readonly error?: string;
}

export interface QueryResult {
  readonly resultType: 'vector' | 'matrix' | 'scalar' | 'string';
  readonly result: ReadonlyArray<{
    readonly metric?: Record<string, string>;
    readonly value?: [number, string];
    readonly values?: ReadonlyArray<[number, string]>;
  }>;
}

export interface PrometheusServer {
  readonly url: string;
  /** An instant query, at `time` (seconds) or now. */
  query(expr: string, time?: number): Promise<ApiAnswer<QueryResult>>;
  /** A range query, as a dashboard's panel makes it: from `start` to `end` (seconds), every `step` seconds. */
  queryRange(expr: string, start: number, end: number, step: number): Promise<ApiAnswer<QueryResult>>;
  /** `GET /api/v1/<path>`, such as `rules` or `alerts`. */
  get<T>(path: string): Promise<ApiAnswer<T>>;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Debian's Prometheus, on a free loopback port with a throw-away data directory,
 * scraping `target` (host:port, `/metrics`) every second under `job` and loading
 * `ruleFiles`, which it evaluates every second; answered once it has scraped the
 * target (its discovery hands targets over a few seconds after the start). Without
 * `prometheus` on the PATH it fails, saying so.
 */
export async function startPrometheus({
  target,
  job,
  labels = {},
  ruleFiles = [],
}: {
  target: string;
  job: string;
  /** Labels added to every scraped series, as service discovery adds `namespace` in a cluster. */
  labels?: Record<string, string>;
  ruleFiles?: readonly string[];
}): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-prometheus-'));
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  // JSON is YAML: no quoting to get wrong.
  await writeFile(
    config,
    JSON.stringify({
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: ruleFiles,
      scrape_configs: [{ job_name: job, static_configs: [{ targets: [target], labels }] }],
    }),
  );
  const server = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await halt(server);
    await rm(dir, { recursive: true, force: true });
  };

  const api = async <T>(path: string, form?: Record<string, string>): Promise<ApiAnswer<T>> => {
    const response = await fetch(`${url}/api/v1/${path}`, {
      method: form ? 'POST' : 'GET',
      body: form ? new URLSearchParams(form) : undefined,
    });
    return (await response.json()) as ApiAnswer<T>;
  };
  try {
    await waitUntilReady(server, url, () => output);
    const deadline = Date.now() + 20_000;
    while ((await api<QueryResult>('query', { query: `up{job="${job}"} == 1` })).data.result.length === 0) {
      if (Date.now() > deadline) {
        throw new Error(`${PROMETHEUS} did not scrape ${target} within 20 s:\n${output}`);
      }
      await sleep(200);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    query: (expr, time) =>
      api('query', { query: expr, ...(time === undefined ? {} : { time: String(time) }) }),
    queryRange: (expr, start, end, step) =>
      api('query_range', { query: expr, start: String(start), end: String(end), step: String(step) }),
    get: (path) => api(path),
    output: () => output,
    stop,
  };
}

async function waitUntilReady(server: ChildProcess, url: string, output: () => string): Promise<void> {
  const failed = new Promise<never>((_resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error(prometheusMissing()) : error),
    );
    server.once('exit', (code) =>
      reject(new Error(`${PROMETHEUS} exited with ${String(code)}:\n${output()}`)),
    );
  });
  failed.catch(() => undefined);
  const ready = () =>
    fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
  const deadline = Date.now() + 20_000;
  while (!(await Promise.race([ready(), failed]))) {
    if (Date.now() > deadline) {
      throw new Error(`${PROMETHEUS} was not ready within 20 s:\n${output()}`);
    }
    await sleep(100);
  }
}

async function halt(server: ChildProcess): Promise<void> {
  if (server.exitCode === null && server.signalCode === null && server.pid !== undefined) {
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    const killer = setTimeout(() => server.kill('SIGKILL'), 10_000);
    await exited.finally(() => clearTimeout(killer));
  }
}
