/**
 * npm run bench [-- options]
 *
 * Measures POST /plants three ways, in one rotation per concurrency, on one
 * PostgreSQL (an embedded one by default, or DATABASE_URL):
 *   ceiling  the same INSERT sent straight through pg by N concurrent loops (no HTTP)
 *   floor    bench/floor-server.js, a minimal node:http + pg server with the same contract
 *   service  the compiled service, production configuration (JSON logs at info, metrics on,
 *            the V8 flags of package.json config.nodeOptions)
 * and the service's start-up time, and (with --preload) how its latency holds
 * up with millions of rows in the table. Prints a table, and writes it as JSON
 * to bench/results/.
 *
 * Options: --duration 10 --warmup 3 --concurrency 8,32,64 --preload 0 --load-generator wrk|autocannon
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, promisify } from 'node:util';

import pg from 'pg';

import { EmbeddedPostgres } from '../dist/core/database/embedded-postgres.js';
import { INSERT_PLANT } from './insert-plant.js';

const run = promisify(execFile);

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '8,32,64' },
    preload: { type: 'string', default: '0' },
    'load-generator': { type: 'string' },
    targets: { type: 'string', default: 'ceiling,floor,service' },
  },
});
const DURATION_S = Number(args.duration);
const WARMUP_S = Number(args.warmup);
const CONCURRENCY = args.concurrency.split(',').map(Number);
const PRELOAD = Number(args.preload);
const TARGETS = new Set(args.targets.split(','));
const TOKEN = randomBytes(24).toString('base64url');
const loadGenerator = args['load-generator'] ?? ((await hasWrk()) ? 'wrk' : 'autocannon');
let nextIdBase = 1_000_000_000_000;

async function main() {
  const { url, stop: stopDatabase } = await database();
  const db = new pg.Pool({ connectionString: url, max: 2 });
  const results = { machine: await machine(url), loadGenerator, durationS: DURATION_S, runs: [] };
  const children = [];
  try {
    // Migrations first, so that the start-up measured next finds the database ready.
    await stopProcess(await startService(url, await freePort()));
    const port = await freePort();
    const startedAt = performance.now();
    const service = await startService(url, port);
    children.push(service);
    results.startupMs = Math.round((await firstCreate(`http://127.0.0.1:${port}`, startedAt)) * 10) / 10;
    console.log(`Start-up to the first 200 on POST /plants: ${results.startupMs} ms`);

    const floorPort = await freePort();
    const floor = spawnNode(['bench/floor-server.js'], {
      DATABASE_URL: url,
      AUTH_TOKENS: TOKEN,
      FLOOR_PORT: String(floorPort),
    });
    children.push(floor);
    await waitForPort(floorPort);

    for (const concurrency of CONCURRENCY) {
      const row = { concurrency };
      if (TARGETS.has('ceiling')) {
        await truncate(db);
        row.ceiling = await ceiling(url, concurrency);
        print('ceiling', concurrency, row.ceiling);
      }
      if (TARGETS.has('floor')) {
        await truncate(db);
        row.floor = await httpLoad(`http://127.0.0.1:${floorPort}`, concurrency);
        print('floor', concurrency, row.floor);
      }
      if (TARGETS.has('service')) {
        await truncate(db);
        row.service = await httpLoad(`http://127.0.0.1:${port}`, concurrency);
        row.service.rssMb = await rssMb(service.pid);
        print('service', concurrency, row.service);
      }
      if (row.service && row.floor) row.serviceToFloor = round(row.service.rps / row.floor.rps);
      if (row.service && row.ceiling) row.serviceToCeiling = round(row.service.rps / row.ceiling.rps);
      results.runs.push(row);
    }

    if (PRELOAD > 0) {
      const concurrency = 32;
      await truncate(db);
      const empty = await httpLoad(`http://127.0.0.1:${port}`, concurrency);
      console.log(`Preloading ${PRELOAD.toLocaleString('en')} rows …`);
      await db.query(
        `INSERT INTO plants (id, name, tag) SELECT -g, 'Preloaded plant ' || g, CASE WHEN g % 2 = 0 THEN 'even' END
         FROM generate_series(1, $1::bigint) AS g`,
        [PRELOAD],
      );
      await db.query('VACUUM ANALYZE plants');
      const loaded = await httpLoad(`http://127.0.0.1:${port}`, concurrency);
      results.growth = {
        rows: PRELOAD,
        concurrency,
        empty,
        loaded,
        p99Ratio: round(loaded.p99Ms / empty.p99Ms),
      };
      print(`service, empty`, concurrency, empty);
      print(`service, ${PRELOAD.toLocaleString('en')} rows`, concurrency, loaded);
      console.log(`p99 with ${PRELOAD.toLocaleString('en')} rows / p99 empty: ${results.growth.p99Ratio}`);
    }
  } finally {
    await Promise.all(children.map(stopProcess));
    await db.end();
    await stopDatabase();
  }

  table(results);
  await mkdir('bench/results', { recursive: true });
  const file = `bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile('bench/results/latest.json', `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nWritten to ${file} (and bench/results/latest.json)`);
}

/** DATABASE_URL (whose name must say bench or test: its table is truncated), or an embedded PostgreSQL. */
async function database() {
  if (process.env.DATABASE_URL) {
    const name = new URL(process.env.DATABASE_URL).pathname.slice(1);
    if (!/bench|test/i.test(name)) {
      throw new Error(
        `Refusing to benchmark on "${name}": its plants are deleted; use a database named *bench* or *test*`,
      );
    }
    return { url: process.env.DATABASE_URL, stop: async () => undefined };
  }
  const dataDir = join(os.tmpdir(), `plant-store-bench-${process.pid}`);
  // Durable, as in production: fsync and synchronous commit on.
  const server = await EmbeddedPostgres.start({ dataDir, database: 'plant_store_bench' });
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
      await rm(`${dataDir}.password`, { force: true });
    },
  };
}

/** The V8 flags production runs with (package.json config.nodeOptions, the Dockerfile's CMD). */
const SERVICE_NODE_FLAGS = JSON.parse(await readFile('package.json', 'utf8')).config.nodeOptions.split(' ');

function startService(url, port) {
  const child = spawnNode([...SERVICE_NODE_FLAGS, 'dist/main.js'], {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: url,
    AUTH_TOKENS: TOKEN,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    METRICS_ENABLED: 'true',
    // Enforced as ever, but above what this load sends: the bench measures the service, not the limiter.
    RATE_LIMIT_PER_TOKEN: '100000000',
  });
  return waitForPort(port).then(() => child);
}

function spawnNode(argv, env) {
  // Logs go straight to a file, as a log collector would take them: written, not thrown away,
  // and without this process relaying them (which would take CPU from the process under test).
  const script = argv.at(-1).replace(/\W/g, '-');
  const fd = openSync(join(os.tmpdir(), `plant-store-bench-${script}-${process.pid}.log`), 'a');
  const child = spawn(process.execPath, argv, {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  return child;
}

async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function firstCreate(base, startedAt) {
  for (let id = 1; ; id++) {
    const ok = await fetch(`${base}/plants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id, name: 'Start-up plant' }),
    }).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ok) return performance.now() - startedAt;
    await sleep(5);
  }
}

/** The same INSERT as the floor's, through pg alone: what PostgreSQL can take from N connections. */
async function ceiling(url, concurrency) {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  const phase = async (seconds, latencies) => {
    const until = performance.now() + seconds * 1000;
    let id = (nextIdBase += 1_000_000_000);
    let count = 0;
    let errors = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          try {
            await pool.query({ ...INSERT_PLANT, values: [String(id++), 'Bench plant', 'bench'] });
            count++;
            latencies?.push(performance.now() - started);
          } catch {
            errors++;
          }
        }
      }),
    );
    return { count, errors };
  };
  await phase(WARMUP_S);
  const latencies = [];
  const started = performance.now();
  const { count, errors } = await phase(DURATION_S, latencies);
  const seconds = (performance.now() - started) / 1000;
  await pool.end();
  latencies.sort((a, b) => a - b);
  return {
    rps: Math.round(count / seconds),
    p50Ms: round(latencies[Math.floor(latencies.length * 0.5)]),
    p99Ms: round(latencies[Math.floor(latencies.length * 0.99)]),
    errors,
    non2xx: 0,
  };
}

async function httpLoad(base, concurrency) {
  await loadOnce(base, concurrency, WARMUP_S);
  return loadOnce(base, concurrency, DURATION_S);
}

async function loadOnce(base, concurrency, seconds) {
  const idBase = (nextIdBase += 1_000_000_000_000);
  if (loadGenerator === 'wrk') {
    const { stdout } = await run(
      'wrk',
      [
        '-t1',
        `-c${concurrency}`,
        `-d${seconds}s`,
        '--timeout',
        '10s',
        '-s',
        'bench/create.lua',
        `${base}/plants`,
      ],
      { env: { ...process.env, BENCH_TOKEN: TOKEN, ID_BASE: String(idBase) } },
    );
    const result = JSON.parse(stdout.split('WRK_RESULT ')[1]);
    return {
      rps: Math.round(result.requests / (result.duration_us / 1e6)),
      p50Ms: round(result.p50_us / 1000),
      p99Ms: round(result.p99_us / 1000),
      errors: result.errors_connect + result.errors_read + result.errors_write + result.errors_timeout,
      non2xx: result.non2xx,
    };
  }
  const { default: autocannon } = await import('autocannon');
  let id = idBase;
  const result = await autocannon({
    url: `${base}/plants`,
    method: 'POST',
    connections: concurrency,
    duration: seconds,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ id: id++, name: 'Bench plant', tag: 'bench' }),
        }),
      },
    ],
  });
  return {
    rps: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

async function truncate(db) {
  await db.query('TRUNCATE plants');
  await db.query('CHECKPOINT');
}

async function rssMb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 1024);
}

async function machine(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query('SHOW server_version');
  await client.end();
  return {
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: rows[0].server_version,
    kernel: os.release(),
  };
}

function print(target, concurrency, result) {
  console.log(
    `${target.padEnd(28)} c${String(concurrency).padEnd(3)} ${String(result.rps).padStart(6)} req/s  ` +
      `p50 ${String(result.p50Ms).padStart(6)} ms  p99 ${String(result.p99Ms).padStart(7)} ms  ` +
      `errors ${result.errors}  non-2xx ${result.non2xx}${result.rssMb ? `  RSS ${result.rssMb} MB` : ''}`,
  );
}

function table(results) {
  console.log(`\nPOST /plants, ${results.durationS} s per run, load generator: ${results.loadGenerator}`);
  console.log(
    `Machine: ${results.machine.cores} × ${results.machine.cpu}, ${results.machine.memoryGb} GiB, Node ${results.machine.node}, PostgreSQL ${results.machine.postgres}`,
  );
  console.log(
    '| c | ceiling req/s | floor req/s (p50/p99 ms) | service req/s (p50/p99 ms) | service/floor | service/ceiling | service RSS |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const row of results.runs) {
    const cell = (r) => (r ? `${r.rps} (${r.p50Ms}/${r.p99Ms})` : '–');
    console.log(
      `| ${row.concurrency} | ${row.ceiling?.rps ?? '–'} | ${cell(row.floor)} | ${cell(row.service)} | ${row.serviceToFloor ?? '–'} | ${row.serviceToCeiling ?? '–'} | ${row.service?.rssMb ?? '–'} MB |`,
    );
  }
  console.log(`Start-up (process start to the first 200 on POST /plants): ${results.startupMs} ms`);
}

function round(value) {
  return Math.round(value * 100) / 100;
}

/** `wrk --version` prints its version and exits 1; a missing wrk fails to spawn (ENOENT). */
async function hasWrk() {
  return run('wrk', ['--version']).then(
    () => true,
    (error) => error.code !== 'ENOENT',
  );
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port) {
  for (let attempt = 0; attempt < 600; attempt++) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.end(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`nothing listens on port ${port}`);
}

await main();
