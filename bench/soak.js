/**
 * npm run build:service && node bench/soak.js [-- options]        (as root)
 *
 * Creates and reads for a long time against the service as docker-compose.yml deploys it: in a
 * cgroup-v1 memory cgroup of its memory limit (APP_MEMORY_LIMIT's default there), with its
 * NODE_OPTIONS (APP_NODE_OPTIONS's), its log piped to this process, outside the cgroup, and its
 * metrics on a port of their own, scraped as Prometheus would. Every --sample-every seconds it
 * records the service's resident memory, the cgroup's usage and V8's heap; at the end it checks
 * that the cgroup killed nothing and that every create answered 200 is stored, and writes it all
 * to bench/results/soak-<time>.json. The figure it judges: resident memory at the end against
 * resident memory after the warm-up (at most 5% more).
 *
 * Options, with their defaults:
 *   --duration 1800          seconds of load, the warm-up included
 *   --warmup 120             seconds after which resident memory is the reference
 *   --sample-every 10        seconds between samples
 *   --connections 16         connections creating plants, and as many reading (by id and pages)
 *   --preload 100000         plants preloaded (ids 1..N) for the reads
 *   --memory-limit SIZE      the cgroup's limit (docker-compose.yml's, 384m)
 *   --node-options TEXT      the service's NODE_OPTIONS (docker-compose.yml's)
 *   --redis                  the rate limits in a redis-server started here, as the compose
 *                            file keeps them (REDIS_URL); otherwise in the service's memory
 *   --heap-snapshots DIR     a heap snapshot after the warm-up and one at the end, written to
 *                            DIR (--heapsnapshot-signal), to compare in Chrome's DevTools
 *                            (or with bench/heap-diff.js); writing one takes memory the
 *                            process keeps, so such a run's resident memory is no measure
 *   --service DIR            the build to run, a checkout built with npm run build:service
 *                            (this one)
 *   --label TEXT             names the run in the JSON
 * DATABASE_URL (its name must say bench or test) replaces the embedded PostgreSQL.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, promisify } from 'node:util';

import pg from 'pg';

import {
  assertRunning,
  byteSize,
  createMemoryCgroup,
  freePort,
  startDatabase,
  stopProcess,
} from './harness.js';

const run = promisify(execFile);

const compose = await readFile(new URL('../docker-compose.yml', import.meta.url), 'utf8');
const COMPOSE_MEMORY_LIMIT = /\$\{APP_MEMORY_LIMIT:-([^}]+)\}/.exec(compose)?.[1] ?? '384m';
const COMPOSE_NODE_OPTIONS = /\$\{APP_NODE_OPTIONS:-([^}]*)\}/.exec(compose)?.[1] ?? '';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '1800' },
    warmup: { type: 'string', default: '120' },
    'sample-every': { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    preload: { type: 'string', default: '100000' },
    'memory-limit': { type: 'string', default: COMPOSE_MEMORY_LIMIT },
    'node-options': { type: 'string', default: COMPOSE_NODE_OPTIONS },
    redis: { type: 'boolean', default: false },
    'heap-snapshots': { type: 'string' },
    service: { type: 'string', default: '.' },
    label: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  const source = await readFile(new URL(import.meta.url), 'utf8');
  console.log(/\/\*\*\n([\s\S]*?)\*\//.exec(source)[1].replace(/^ \* ?/gm, ''));
  process.exit(0);
}

const DURATION_S = wholeNumber('duration', args.duration);
const WARMUP_S = wholeNumber('warmup', args.warmup);
const SAMPLE_EVERY_S = wholeNumber('sample-every', args['sample-every']);
const CONNECTIONS = wholeNumber('connections', args.connections);
const PRELOAD = wholeNumber('preload', args.preload);
const MEMORY_LIMIT_BYTES =
  byteSize(args['memory-limit']) ??
  usage(`--memory-limit takes a size such as 384M, not ${args['memory-limit']}`);
const NODE_OPTIONS = [
  args['node-options'],
  ...(args['heap-snapshots']
    ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${resolve(args['heap-snapshots'])}`]
    : []),
]
  .join(' ')
  .trim();
if (WARMUP_S >= DURATION_S) {
  usage('--warmup must be shorter than --duration');
}
const TOKEN = randomBytes(24).toString('base64url');
const PAGE_SIZE = 20;
/** Created plants' ids start far above the preloaded ones. */
const FIRST_CREATED_ID = 1_000_000_000_000;
const MB = 2 ** 20;

/** What to undo at the end, or on Ctrl-C: the service, its cgroup, the database, in that order. */
const cleanups = [];

async function cleanUp() {
  for (const cleanup of cleanups.splice(0)) {
    await cleanup().catch((error) => console.error(`Clean-up: ${error.message}`));
  }
}

process.once('SIGINT', () => {
  console.error('\nInterrupted: stopping the service and the database …');
  void cleanUp().then(() => process.exit(130));
});

async function main() {
  const startedAt = new Date();
  const resultsFile = `bench/results/soak-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`;
  const logFile = join(os.tmpdir(), `plant-store-soak-${process.pid}.log`);
  const results = {
    label: args.label ?? null,
    startedAt: startedAt.toISOString(),
    options: {
      durationS: DURATION_S,
      warmupS: WARMUP_S,
      sampleEveryS: SAMPLE_EVERY_S,
      connections: CONNECTIONS,
      preload: PRELOAD,
      memoryLimitMb: MEMORY_LIMIT_BYTES / MB,
      nodeOptions: NODE_OPTIONS,
      redis: args.redis,
      service: resolve(args.service),
    },
    machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version },
  };
  try {
    const database = await startDatabase('plant_store_soak').catch((error) => usage(error.message));
    cleanups.unshift(database.stop);
    const redisUrl = args.redis ? await startRedis(cleanups) : undefined;
    if (args['heap-snapshots']) {
      await mkdir(args['heap-snapshots'], { recursive: true });
    }
    const cgroup = await createMemoryCgroup('plant-store-soak', MEMORY_LIMIT_BYTES).catch((error) =>
      usage(error.message),
    );
    cleanups.unshift(cgroup.remove);
    const [port, metricsPort] = [await freePort(), await freePort()];
    const service = startService(cgroup, logFile, {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      DATABASE_URL: database.url,
      AUTH_TOKENS: TOKEN,
      LOG_LEVEL: 'info',
      // Enforced, but above what this load sends.
      RATE_LIMIT_PER_TOKEN: '1000000000',
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
      ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}),
    });
    cleanups.unshift(() => stopProcess(service));
    const base = `http://127.0.0.1:${port}`;
    await waitUntilReady(service, base);
    console.log(
      `The service (pid ${service.pid}) in a ${MEMORY_LIMIT_BYTES / MB} MiB memory cgroup, ` +
        `NODE_OPTIONS ${NODE_OPTIONS || '(none)'}, rate limits ${redisUrl ? 'in Redis' : 'in memory'}; its log: ${logFile}`,
    );

    const db = new pg.Pool({ connectionString: database.url, max: 2 });
    cleanups.unshift(() => db.end());
    await preload(db);

    console.log(
      `${CONNECTIONS} connections creating and ${CONNECTIONS} reading for ${DURATION_S} s, ` +
        `a sample every ${SAMPLE_EVERY_S} s, the reference after ${WARMUP_S} s`,
    );
    const load = startLoad(base);
    const samples = [];
    const started = performance.now();
    let snapshotAfterWarmup = !args['heap-snapshots'];
    for (let next = SAMPLE_EVERY_S; next <= DURATION_S; next += SAMPLE_EVERY_S) {
      await sleep(Math.max(0, started + next * 1000 - performance.now()));
      assertRunning(service);
      const sample = await takeSample(service.pid, cgroup, metricsPort, load, next);
      samples.push(sample);
      if (next % 60 === 0 || next === SAMPLE_EVERY_S) {
        printSample(sample);
      }
      if (!snapshotAfterWarmup && next >= WARMUP_S) {
        snapshotAfterWarmup = true;
        await heapSnapshot(service);
      }
    }
    await load.stop();
    if (args['heap-snapshots']) {
      await heapSnapshot(service);
    }

    results.samples = samples;
    results.requests = load.counts();
    results.creates = await checkCreates(db, load);
    results.memory = memorySummary(samples);
    await stopProcess(service);
    results.oomKills = await cgroup.oomKills();
    results.logLines = service.logLines;
    report(results);
    results.finishedAt = new Date().toISOString();
    await mkdir('bench/results', { recursive: true });
    await writeFile(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`\nWritten to ${resultsFile}`);
    if (!results.memory.met || results.oomKills > 0 || results.creates.missing > 0) {
      process.exitCode = 1;
    }
  } finally {
    await cleanUp();
  }
}

// ---------------------------------------------------------------------------
// The service, its cgroup and its database

function startService(cgroup, logFile, env) {
  // The shell joins the cgroup, then becomes node: the service is in it from its first instruction.
  const child = spawn(
    'sh',
    ['-c', 'echo $$ > "$0/tasks" && exec "$@"', cgroup.path, process.execPath, 'dist/main.js'],
    { cwd: args.service, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // The log is read here, outside the cgroup, as a collector would read it.
  const log = createWriteStream(logFile);
  child.logLines = 0;
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
        child.logLines++;
      }
      log.write(chunk);
    });
  }
  child.once('exit', () => log.end());
  child.target = 'service';
  child.logFile = logFile;
  return child;
}

async function waitUntilReady(service, base) {
  for (let attempt = 0; attempt < 1200; attempt++) {
    assertRunning(service);
    const ready = await fetch(`${base}/health/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) {
      return;
    }
    await sleep(50);
  }
  throw new Error(`The service is not ready; its log: ${service.logFile}`);
}

async function startRedis(cleanups) {
  const port = await freePort();
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  cleanups.unshift(() => stopProcess(redis));
  for (let attempt = 0; attempt < 100; attempt++) {
    if (
      await run('redis-cli', ['-p', String(port), 'ping']).then(
        ({ stdout }) => stdout.trim() === 'PONG',
        () => false,
      )
    ) {
      return `redis://127.0.0.1:${port}`;
    }
    await sleep(50);
  }
  throw new Error('redis-server did not start');
}

/** Plants 1..N (the service's migrations made the table), and nothing else. */
async function preload(db) {
  await db.query('TRUNCATE plants');
  await db.query(
    `INSERT INTO plants (id, name, tag)
     SELECT g, 'Plant ' || g, CASE WHEN g % 4 = 0 THEN 'fern' END FROM generate_series(1, $1::bigint) AS g`,
    [PRELOAD],
  );
  await db.query('VACUUM ANALYZE plants');
}

// ---------------------------------------------------------------------------
// The load

/**
 * CONNECTIONS loops creating plants (each a new id, in order) and as many reading (by id and pages,
 * in turn), each with its own connection. A create answered 200 is acknowledged; the ids of the
 * others are kept, to leave them out of the check.
 */
function startLoad(base) {
  const agent = new Agent({ keepAlive: true, maxSockets: 2 * CONNECTIONS });
  const counts = { creates: 0, createsRefused: 0, reads: 0, readsRefused: 0, socketErrors: 0, statuses: {} };
  const unacknowledged = [];
  let nextId = FIRST_CREATED_ID;
  let running = true;

  const send = (method, path, body) =>
    new Promise((done) => {
      const request = httpRequest(
        `${base}${path}`,
        {
          method,
          agent,
          headers: {
            Authorization: `Bearer ${TOKEN}`,
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
        },
        (response) => {
          response.resume();
          response.once('end', () => done(response.statusCode));
          response.once('error', () => done(0));
        },
      );
      request.once('error', () => done(0));
      request.end(body);
    });
  const count = (status) => {
    counts.statuses[status] = (counts.statuses[status] ?? 0) + 1;
    if (status === 0) {
      counts.socketErrors++;
    }
  };

  const creating = async () => {
    while (running) {
      const id = ++nextId;
      const status = await send('POST', '/plants', `{"id":${id},"name":"Soak plant ${id}","tag":"soak"}`);
      count(status);
      if (status === 200) {
        counts.creates++;
      } else {
        counts.createsRefused++;
        unacknowledged.push(id);
      }
    }
  };
  const reading = async () => {
    for (let turn = 0; running; turn++) {
      const status =
        turn % 2 === 0
          ? await send('GET', `/plants/${randomInt(1, PRELOAD + 1)}`)
          : await send('GET', `/plants?limit=${PAGE_SIZE}&after=${randomInt(0, PRELOAD - PAGE_SIZE)}`);
      count(status);
      if (status === 200) {
        counts.reads++;
      } else {
        counts.readsRefused++;
      }
    }
  };
  const loops = [
    ...Array.from({ length: CONNECTIONS }, creating),
    ...Array.from({ length: CONNECTIONS }, reading),
  ];
  return {
    counts: () => ({ ...counts, statuses: { ...counts.statuses } }),
    /** The ids sent, and those not acknowledged. */
    created: () => ({ first: FIRST_CREATED_ID + 1, last: nextId, unacknowledged }),
    stop: async () => {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}

/** Every create answered 200 is stored: the ids sent, less those not acknowledged, are all in the table. */
async function checkCreates(db, load) {
  const { first, last, unacknowledged } = load.created();
  const {
    rows: [{ stored }],
  } = await db.query(
    'SELECT count(*)::int AS stored FROM plants WHERE id BETWEEN $1 AND $2 AND id <> ALL ($3::bigint[])',
    [first, last, unacknowledged],
  );
  const acknowledged = last - first + 1 - unacknowledged.length;
  return { acknowledged, stored, missing: acknowledged - stored, unacknowledged: unacknowledged.length };
}

// ---------------------------------------------------------------------------
// Samples

let previousCounts = { creates: 0, reads: 0 };

async function takeSample(pid, cgroup, metricsPort, load, seconds) {
  const [status, mappings, usageBytes, stat, metrics] = await Promise.all([
    readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''),
    residentByMapping(pid),
    cgroup.usageBytes(),
    cgroup.stat(),
    fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
      (response) => response.text(),
      () => '',
    ),
  ]);
  const metric = (name) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  const counts = load.counts();
  const sample = {
    seconds,
    rssMb: mb(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) * 1024),
    cgroupUsageMb: mb(usageBytes),
    cgroupRssMb: mb(stat.rssBytes),
    cgroupCacheMb: mb(stat.cacheBytes),
    heapUsedMb: mb(metric('nodejs_heap_size_used_bytes')),
    heapTotalMb: mb(metric('nodejs_heap_size_total_bytes')),
    externalMb: mb(metric('nodejs_external_memory_bytes')),
    /** V8's heap spaces, their size (committed) in MB. */
    heapSpacesMb: Object.fromEntries(
      [...metrics.matchAll(/^nodejs_heap_space_size_total_bytes\{space="([^"]+)"\} (\S+)$/gm)].map(
        ([, space, bytes]) => [space, mb(Number(bytes))],
      ),
    ),
    /** Resident memory by kind of mapping (residentByMapping). */
    residentMb: mappings,
    createsPerS: Math.round((counts.creates - previousCounts.creates) / SAMPLE_EVERY_S),
    readsPerS: Math.round((counts.reads - previousCounts.reads) / SAMPLE_EVERY_S),
    refused: counts.createsRefused + counts.readsRefused,
  };
  previousCounts = counts;
  return sample;
}

/**
 * Resident memory by kind of mapping, from /proc/<pid>/smaps: `malloc` the C heap (brk and glibc's
 * per-thread arenas, 64 MiB-aligned), `anonymous` the rest of the anonymous memory (V8's heap pages,
 * its code), `files` what is mapped from files (the node binary, libraries).
 */
async function residentByMapping(pid) {
  const text = await readFile(`/proc/${pid}/smaps`, 'utf8').catch(() => '');
  const sums = { malloc: 0, anonymous: 0, files: 0 };
  let kind;
  for (const line of text.split('\n')) {
    const mapping = /^([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ \S+ *(.*)$/.exec(line);
    if (mapping) {
      const [, start, name] = mapping;
      kind =
        name === '[heap]' || (name === '' && /^7f[0-9a-f]*[048c]000000$/.test(start))
          ? 'malloc'
          : name === ''
            ? 'anonymous'
            : name.startsWith('[')
              ? undefined
              : 'files';
    } else if (kind && line.startsWith('Rss:')) {
      sums[kind] += Number(/\d+/.exec(line)[0]) * 1024;
    }
  }
  return Object.fromEntries(Object.entries(sums).map(([key, bytes]) => [key, mb(bytes)]));
}

async function heapSnapshot(service) {
  console.log('Heap snapshot …');
  service.kill('SIGUSR2');
  // Written while the process stands still: let it finish before the next sample.
  await sleep(15_000);
}

/** Resident memory at the end against after the warm-up; each the median of three samples, around it. */
function memorySummary(samples) {
  const around = (index) =>
    median(samples.slice(Math.max(0, index - 1), index + 2).map((sample) => sample.rssMb));
  const reference = samples.findIndex((sample) => sample.seconds >= WARMUP_S);
  const afterWarmupMb = around(reference);
  const endMb = around(samples.length - 2);
  const growth = round((endMb - afterWarmupMb) / afterWarmupMb);
  return {
    afterWarmupMb,
    endMb,
    maxRssMb: Math.max(...samples.map((sample) => sample.rssMb)),
    maxCgroupUsageMb: Math.max(...samples.map((sample) => sample.cgroupUsageMb)),
    growth,
    met: growth <= 0.05,
    /** The RSS curve, a point a minute or so. */
    curve: samples
      .filter(
        (_, index) =>
          index % Math.max(1, Math.round(60 / SAMPLE_EVERY_S)) === 0 || index === samples.length - 1,
      )
      .map(({ seconds, rssMb, cgroupUsageMb, heapUsedMb }) => ({
        seconds,
        rssMb,
        cgroupUsageMb,
        heapUsedMb,
      })),
  };
}

function printSample(sample) {
  console.log(
    `${String(sample.seconds).padStart(5)} s  RSS ${sample.rssMb} MB  cgroup ${sample.cgroupUsageMb} MB ` +
      `(anonymous ${sample.cgroupRssMb}, cache ${sample.cgroupCacheMb})  heap ${sample.heapUsedMb} of ${sample.heapTotalMb} MB  ` +
      `external ${sample.externalMb} MB  malloc ${sample.residentMb.malloc} MB  ${sample.createsPerS} creates/s  ${sample.readsPerS} reads/s  refused ${sample.refused}`,
  );
}

function report(results) {
  const { memory, creates, requests } = results;
  console.log(
    `\nResident memory: ${memory.afterWarmupMb} MB after ${WARMUP_S} s, ${memory.endMb} MB at the end ` +
      `(${memory.growth >= 0 ? '+' : ''}${round(memory.growth * 100, 1)}%, at most +5%: ${memory.met ? 'met' : 'NOT MET'}); ` +
      `at most ${memory.maxRssMb} MB, the cgroup at most ${memory.maxCgroupUsageMb} MB of ${MEMORY_LIMIT_BYTES / MB} MiB`,
  );
  console.log(`Processes the cgroup killed for memory: ${results.oomKills}`);
  console.log(
    `Creates: ${creates.acknowledged} acknowledged, ${creates.stored} of them stored, ${creates.missing} missing ` +
      `(${creates.unacknowledged} not acknowledged); reads: ${requests.reads} answered 200, ${requests.readsRefused} not; ` +
      `socket errors ${requests.socketErrors}; statuses ${JSON.stringify(requests.statuses)}`,
  );
}

// ---------------------------------------------------------------------------
// Helpers

function usage(message) {
  console.error(`bench/soak.js: ${message} (see node bench/soak.js --help)`);
  process.exit(2);
}

function wholeNumber(name, text) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    usage(`--${name} must be a whole number above 0, not ${text}`);
  }
  return value;
}

function mb(bytes) {
  return Number.isNaN(bytes) ? null : round(bytes / MB, 1);
}

function median(values) {
  const sorted = values.filter((value) => typeof value === 'number').sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.floor(sorted.length / 2)];
}

function round(value, digits = 3) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

await main();
