/**
 * npm run bench [-- options]
 *
 * Compares, in one run on one PostgreSQL (an embedded one by default, or
 * DATABASE_URL, whose name must say bench or test):
 *   floor    bench/floor-server.js: the service's creates, reads by id and pages
 *            hand-written on node:http + pg (it has no PATCH: patches are compared
 *            with the baseline)
 *   floor-nodb  the floor without its database (FLOOR_DATABASE=none: every statement
 *            answered at once, as PostgreSQL would): run whenever floor and
 *            ceiling-nest are, for the stack's bound
 *   typical  ../shared/bench/nest-typical with PERSIST=insert (--nest-typical DIR): what
 *            a NestJS team writes by hand, the stock pieces and TypeORM's insert(),
 *            findOneBy() and find(); creates, reads by id and pages
 *   ceiling-nest  the same application with PERSIST=none, touching no database: the
 *            framework's own ceiling on those three routes
 *   ceiling  bench/ceiling-server.js: node:http answering POST /plants with no database
 *   framework  bench/framework-server.js: an ordinary NestJS on Express app answering
 *            POST /plants with no database: what the service's stack costs by itself
 *   service  dist/main.js in its production configuration (NODE_ENV=production, JSON
 *            logs at info written to a file, metrics on), with no Node.js flags unless
 *            --service-node-options gives some
 *   baseline another built checkout of the service (--baseline DIR: its dist/main.js),
 *            run exactly as the service is, to compare two builds side by side
 * on POST /plants (unique ids), GET /plants/{id} and GET /plants?limit=20&after=… (random
 * ids and pages of N preloaded rows) and PATCH /plants/{id} (random preloaded ids, a new
 * name, and in half of them the tag set or removed; unconditional: no If-Match, as a
 * client that does not read first sends it, so REQUIRE_IF_MATCH=true makes each a 428),
 * the targets taking turns at each route and concurrency, the whole rotation repeated
 * --rounds times. A request unanswered after --late-after seconds is counted late (and
 * given up), apart from the socket errors: at 1,000 connections (--concurrency 1000,
 * --read-concurrency 1000) that is the overload run, where no request may be late. Each run finds the preloaded plants as the preload wrote them: what
 * creates added is deleted, what patches changed restored. Before the load, a contract
 * check asks the floor and the service the same requests on the floor's routes and
 * compares their answers.
 * The stack's bound on a route combines the framework's ceiling with the floor's data cost:
 *   1 / bound = 1 / ceiling-nest + (1 / floor - 1 / floor-nodb)
 * and the service is given as a share of it, and of the typical application (its req/s and
 * p99), its start-up (process start to the first 200) as a multiple of the floor's.
 * typical and ceiling-nest run as the service does: in a memory cgroup of their own with
 * --memory-limit, with --service-node-options as NODE_OPTIONS. nest-typical is copied to
 * a scratch folder (by its content, and kept for the next run), installed with npm ci and
 * built with this project's TypeScript, as its README says.
 * Prints a table per round and writes everything as JSON to bench/results/.
 *
 * Options, with their defaults (and --help, which prints this):
 *   --duration 10            seconds measured per run
 *   --warmup 3               seconds of load before each measured run
 *   --concurrency 8,32,64    connections for the writes (POST /plants, PATCH /plants/{id})
 *   --read-concurrency 32,64 connections for the reads
 *   --preload 1000000        plants preloaded (ids 1..N; every 4th tagged "fern")
 *   --shared-buffers auto    the embedded PostgreSQL's shared_buffers: auto sizes them to
 *                            the preloaded plants (at least PostgreSQL's 128MB, at most a
 *                            quarter of the memory), or a size (512MB), or default
 *   --rounds 1               times the whole rotation is run
 *   --startups 1             times each target is started, for the median start-up
 *   --late-after 2           seconds after which a request counts as late
 *   --routes create,get,list,patch (also: list-tag, pages of one tag; list-name-prefix, name-sorted
 *                            first pages of the names starting "Plant <100..999>", not on the floor)
 *   --targets floor,ceiling,ceiling-nest,typical,service (also: framework, floor-nodb,
 *                            baseline; by default without ceiling-nest and typical when
 *                            there is no --nest-typical folder)
 *   --baseline DIR           the checkout the baseline target runs, built (npm ci and
 *                            npm run build:service in it); naming it adds the target
 *   --nest-typical DIR       the nest-typical application the typical and ceiling-nest
 *                            targets run (../shared/bench/nest-typical, from the
 *                            project's root); read only, it is copied
 *   --load-generator wrk|autocannon   (wrk when installed)
 *   --service-env KEY=VALUE  extra environment for the service (repeatable; the floor
 *                            follows its DATABASE_WRITE_CONCURRENCY, WEBHOOK_URLS and
 *                            HTTP_LISTENERS too, the ceilings its HTTP_LISTENERS)
 *   --service-node-options   Node.js options for the service, as a deployment sets them
 *                            in NODE_OPTIONS ("--max-semi-space-size=16")
 *   --memory-limit SIZE      runs the service (and the baseline, typical and ceiling-nest,
 *                            each in a cgroup of its own) in a memory cgroup of this size
 *                            (256M), as a pod's memory limit does: cgroup v1, as root;
 *                            reports the cgroup's peak and the processes it killed
 *   --label TEXT             names the run in the JSON
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import { chmod, cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, promisify } from 'node:util';

import pg from 'pg';

import { answersOf, contractProbes, differencesOf } from './contract-check.js';
import {
  assertRunning,
  byteSize,
  createMemoryCgroup,
  freePort,
  startDatabase,
  stopProcess,
} from './harness.js';

const run = promisify(execFile);

const ROUTES = {
  create: {
    label: 'POST /plants',
    script: 'bench/create.lua',
    method: 'POST',
    writes: true,
  },
  get: { label: 'GET /plants/{id}', script: 'bench/get.lua', method: 'GET' },
  list: { label: 'GET /plants?limit=20&after=…', script: 'bench/list.lua', method: 'GET' },
  'list-tag': {
    label: 'GET /plants?limit=20&after=…&tag=fern',
    script: 'bench/list.lua',
    method: 'GET',
    tag: 'fern',
  },
  'list-name-prefix': {
    label: 'GET /plants?sort=name&name[prefix]=…',
    script: 'bench/list-name-prefix.lua',
    method: 'GET',
    floor: false,
    path: (random) => `/plants?sort=name&name%5Bprefix%5D=Plant%20${100 + random(899)}&limit=${PAGE_SIZE}`,
  },
  patch: {
    label: 'PATCH /plants/{id}',
    script: 'bench/patch.lua',
    method: 'PATCH',
    writes: true,
  },
};
const TARGETS = [
  'floor',
  'floor-nodb',
  'ceiling',
  'framework',
  'ceiling-nest',
  'typical',
  'baseline',
  'service',
];
/** The targets that run a build of the service, as production does: the service, and the baseline. */
const SERVICE_BUILDS = ['baseline', 'service'];
/** The targets run as docker-compose.yml deploys the service: its memory limit and NODE_OPTIONS. */
const DEPLOYED = [...SERVICE_BUILDS, 'typical', 'ceiling-nest'];
/** The targets the nest-typical application serves. */
const NEST_TYPICAL = ['typical', 'ceiling-nest'];
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGE_SIZE = 20;
/** Every TAG_EVERY-th preloaded plant carries the tag "fern". */
const TAG_EVERY = 4;

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '8,32,64' },
    'read-concurrency': { type: 'string', default: '32,64' },
    preload: { type: 'string', default: '1000000' },
    'shared-buffers': { type: 'string', default: 'auto' },
    rounds: { type: 'string', default: '1' },
    startups: { type: 'string', default: '1' },
    'late-after': { type: 'string', default: '2' },
    routes: { type: 'string', default: 'create,get,list,patch' },
    targets: { type: 'string' },
    'load-generator': { type: 'string' },
    'service-env': { type: 'string', multiple: true, default: [] },
    'service-node-options': { type: 'string', default: '' },
    'memory-limit': { type: 'string' },
    baseline: { type: 'string' },
    'nest-typical': { type: 'string', default: '../shared/bench/nest-typical' },
    label: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  const source = await readFile(new URL(import.meta.url), 'utf8');
  console.log(/\/\*\*\n([\s\S]*?)\*\//.exec(source)[1].replace(/^ \* ?/gm, ''));
  process.exit(0);
}

const DURATION_S = positiveNumber('duration', args.duration);
const WARMUP_S = positiveNumber('warmup', args.warmup, true);
const CONCURRENCY = numberList('concurrency', args.concurrency);
const READ_CONCURRENCY = numberList('read-concurrency', args['read-concurrency']);
const PRELOAD = positiveNumber('preload', args.preload, true);
const ROUNDS = positiveNumber('rounds', args.rounds);
const STARTUPS = positiveNumber('startups', args.startups);
const LATE_AFTER_S = positiveNumber('late-after', args['late-after']);
const SHARED_BUFFERS = sharedBuffers(args['shared-buffers']);
const ROUTE_NAMES = nameList('routes', args.routes, Object.keys(ROUTES));
const BASELINE_DIR = args.baseline;
const NEST_TYPICAL_DIR = resolve(PROJECT_ROOT, args['nest-typical']);
const NAMED_TARGETS = nameList(
  'targets',
  args.targets ??
    (existsSync(join(NEST_TYPICAL_DIR, 'package.json'))
      ? 'floor,ceiling,ceiling-nest,typical,service'
      : 'floor,ceiling,service'),
  TARGETS,
);
const TARGET_NAMES = TARGETS.filter(
  (target) =>
    NAMED_TARGETS.includes(target) ||
    (target === 'baseline' && BASELINE_DIR !== undefined) ||
    // The bound needs the floor's data cost: the floor with and without its database.
    (target === 'floor-nodb' && NAMED_TARGETS.includes('floor') && NAMED_TARGETS.includes('ceiling-nest')),
);
if (
  TARGET_NAMES.some((target) => NEST_TYPICAL.includes(target)) &&
  !existsSync(join(NEST_TYPICAL_DIR, 'package.json'))
) {
  usage(`typical and ceiling-nest run nest-typical, not found at ${NEST_TYPICAL_DIR} (--nest-typical DIR)`);
}
if (TARGET_NAMES.includes('baseline') && BASELINE_DIR === undefined) {
  usage('the baseline target needs --baseline DIR, a built checkout of the service');
}
const SERVICE_ENV = serviceEnv(args['service-env']);
const TOKEN = randomBytes(24).toString('base64url');
// Enforced as ever, but above what this load sends: the bench measures the servers, not the limiter.
const RATE_LIMIT_PER_TOKEN = '100000000';
const loadGenerator = args['load-generator'] ?? ((await hasWrk()) ? 'wrk' : 'autocannon');
if (loadGenerator !== 'wrk' && loadGenerator !== 'autocannon') {
  usage(`--load-generator must be wrk or autocannon, not ${loadGenerator}`);
}
if (ROUTE_NAMES.some((route) => ROUTES[route].method !== 'POST') && PRELOAD < 1000) {
  usage('the read and patch routes need --preload 1000 or more');
}

const SERVICE_NODE_OPTIONS = args['service-node-options'].trim();
const MEMORY_LIMIT_BYTES =
  args['memory-limit'] === undefined
    ? undefined
    : (byteSize(args['memory-limit']) ??
      usage(`--memory-limit takes a size such as 256M or 1G, not ${args['memory-limit']}`));
/** Creates use ids far above the preloaded ones; start-up probes use ids below 1. */
let nextIdBase = 1_000_000_000_000;
let nextProbeId = -1_000_000;
const children = new Set();
const logFiles = [];
const CLOCK_TICKS =
  Number(
    await run('getconf', ['CLK_TCK']).then(
      ({ stdout }) => stdout.trim(),
      () => '100',
    ),
  ) || 100;

async function main() {
  const startedAt = new Date();
  const plan = runPlan();
  const runCount =
    ROUNDS *
    plan.reduce((sum, { route }) => sum + TARGET_NAMES.filter((target) => answers(target, route)).length, 0);
  console.log(
    `${runCount} runs of ${WARMUP_S} + ${DURATION_S} s (${ROUNDS} round${ROUNDS > 1 ? 's' : ''}), load generator ` +
      `${loadGenerator}: about ${Math.ceil((runCount * (WARMUP_S + DURATION_S + 1)) / 60)} min, and the preload`,
  );
  // As a production server would be, sized so that its buffers hold the plants (--shared-buffers).
  const database = await startDatabase(
    'plant_store_bench',
    SHARED_BUFFERS ? { shared_buffers: SHARED_BUFFERS } : {},
  );
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  const results = {
    label: args.label ?? null,
    startedAt: startedAt.toISOString(),
    machine: await machine(db),
    loadGenerator,
    options: {
      durationS: DURATION_S,
      warmupS: WARMUP_S,
      concurrency: CONCURRENCY,
      readConcurrency: READ_CONCURRENCY,
      preload: PRELOAD,
      rounds: ROUNDS,
      startups: STARTUPS,
      lateAfterS: LATE_AFTER_S,
      routes: ROUTE_NAMES,
      targets: TARGET_NAMES,
      serviceEnv: maskedEnv(SERVICE_ENV),
      serviceNodeOptions: SERVICE_NODE_OPTIONS,
      memoryLimitMb: MEMORY_LIMIT_BYTES === undefined ? null : MEMORY_LIMIT_BYTES / 2 ** 20,
    },
  };
  const servers = {};
  if (MEMORY_LIMIT_BYTES !== undefined) {
    for (const target of DEPLOYED.filter((deployed) => TARGET_NAMES.includes(deployed))) {
      memoryCgroups[target] = await createMemoryCgroup(
        `plant-store-bench-${target}`,
        MEMORY_LIMIT_BYTES,
      ).catch((error) => usage(`--memory-limit: ${error.message}`));
    }
  }
  try {
    if (TARGET_NAMES.some((target) => NEST_TYPICAL.includes(target))) {
      nestTypicalBuild = await buildNestTypical(NEST_TYPICAL_DIR);
    }
    // Migrations first, so that the start-up measured later finds the database ready.
    await stopProcess(await startServer('service', database.url));
    results.preload = await preload(db);
    results.prewarm = await prewarm(db);

    // Each start measured, the last one kept running; the targets take turns, so that each finds
    // the machine as the others do.
    const startups = Object.fromEntries(TARGET_NAMES.map((target) => [target, []]));
    for (let attempt = 1; attempt <= STARTUPS; attempt++) {
      for (const target of TARGET_NAMES) {
        const server = await startServer(target, database.url, { measureStartup: true });
        startups[target].push(server.startupMs);
        if (attempt < STARTUPS) {
          await stopProcess(server);
        } else {
          servers[target] = server;
        }
      }
    }
    results.startups = startups;
    results.startupMs = Object.fromEntries(
      Object.entries(startups).map(([target, times]) => [target, median(times)]),
    );
    results.startupRatios = startupRatios(results.startupMs);
    console.log(
      `Start-up, process start to the first 200 on POST /plants${STARTUPS > 1 ? ` (median of ${STARTUPS})` : ''}: ` +
        Object.entries(results.startupMs)
          .map(([target, ms]) => `${target} ${ms} ms`)
          .join(', '),
    );

    if (servers.floor && servers.service) {
      results.contract = await checkContract(db, servers.floor, servers.service);
    }

    results.rounds = [];
    for (let number = 1; number <= ROUNDS; number++) {
      const runs = [];
      for (const { route, concurrency } of plan) {
        const row = { route, concurrency };
        for (const target of TARGET_NAMES) {
          if (!answers(target, route)) {
            continue;
          }
          row[target] = await measure(db, servers[target], route, concurrency);
          printRun(number, row.route, concurrency, target, row[target]);
        }
        row.bound = boundOf(row);
        row.ratios = ratios(row);
        runs.push(row);
      }
      results.rounds.push({ round: number, runs });
    }
  } finally {
    await Promise.all([...children].map(stopProcess));
    if (process.env.DATABASE_URL) {
      // The preloaded plants alone, as preloaded, so that the next run on this database can keep them.
      await deleteCreated(db).catch(() => undefined);
    }
    await db.end();
    await database.stop();
    if (Object.keys(memoryCgroups).length > 0) {
      results.memoryCgroup = { oomKills: 0 };
      for (const [target, cgroup] of Object.entries(memoryCgroups)) {
        const kills = await cgroup.oomKills();
        results.memoryCgroup.oomKills += kills;
        results.memoryCgroup[target] = { oomKills: kills };
        await cgroup.remove();
      }
    }
  }

  results.finishedAt = new Date().toISOString();
  if (ROUNDS > 1) {
    results.median = medianRuns(results.rounds);
  }
  results.targets = targetsMet(results);
  results.invalid = invalidRuns(results);
  results.valid = results.invalid.length === 0;
  results.logs = await logSizes(servers);
  for (const log of Object.values(results.logs)) {
    // Only an invalid run's logs are worth keeping: the service's hold a line per request.
    log.kept = !results.valid;
    if (!log.kept) {
      await rm(log.file, { force: true });
    }
  }

  report(results);
  await mkdir('bench/results', { recursive: true });
  const file = `bench/results/${startedAt.toISOString().replace(/[:.]/g, '-')}.json`;
  const text = `${JSON.stringify(results, null, 2)}\n`;
  await writeFile(file, text);
  await writeFile('bench/results/latest.json', text);
  console.log(`\nWritten to ${file} (and bench/results/latest.json)`);
  if (!results.valid) {
    process.exitCode = 1;
  }
}

/** Each route at each of its concurrencies, in order: the targets take turns at each. */
function runPlan() {
  return ROUTE_NAMES.flatMap((route) =>
    (ROUTES[route].writes ? CONCURRENCY : READ_CONCURRENCY).map((concurrency) => ({ route, concurrency })),
  );
}

// ---------------------------------------------------------------------------
// The database

/**
 * Plants 1..N in one statement, then VACUUM ANALYZE. A table that holds exactly
 * those already (a reused DATABASE_URL) is kept as it is.
 */
async function preload(db) {
  const {
    rows: [table],
  } = await db.query(
    'SELECT count(*)::text AS count, min(id)::text AS min, max(id)::text AS max FROM plants',
  );
  if (PRELOAD > 0 && table.count === String(PRELOAD) && table.min === '1' && table.max === String(PRELOAD)) {
    console.log(`Preload: the table holds plants 1..${PRELOAD} already`);
    return { rows: PRELOAD, seconds: 0, reused: true };
  }
  const started = performance.now();
  await db.query('TRUNCATE plants');
  if (PRELOAD > 0) {
    console.log(`Preloading ${PRELOAD.toLocaleString('en')} plants …`);
    await db.query(
      `INSERT INTO plants (id, name, tag)
       SELECT g, 'Plant ' || g, CASE WHEN g % ${TAG_EVERY} = 0 THEN 'fern' END FROM generate_series(1, $1::bigint) AS g`,
      [PRELOAD],
    );
    await db.query('VACUUM ANALYZE plants');
    await db.query('CHECKPOINT');
  }
  const seconds = round((performance.now() - started) / 1000, 1);
  console.log(`Preload: ${seconds} s`);
  return { rows: PRELOAD, seconds, reused: false };
}

/**
 * Reads the table and its indexes into PostgreSQL's buffers (pg_prewarm), as a
 * server that has been serving them would hold them; a table larger than the
 * buffers keeps its last part. Skipped where the extension is missing.
 */
async function prewarm(db) {
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
  } catch (error) {
    console.log(`Prewarm skipped: ${error.message}`);
    return null;
  }
  const started = performance.now();
  const {
    rows: [{ blocks }],
  } = await db.query(
    `SELECT sum(pg_prewarm(oid::regclass))::text AS blocks FROM pg_class
      WHERE oid = 'plants'::regclass OR oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'plants'::regclass)`,
  );
  const seconds = round((performance.now() - started) / 1000, 1);
  console.log(`Prewarm: ${Number(blocks).toLocaleString('en')} blocks of 8 kB in ${seconds} s`);
  return { blocks: Number(blocks), seconds };
}

/**
 * Deletes what creates wrote (ids outside 1..N), not the preloaded plants, and
 * gives the plants that patches changed (their version above 1) back their
 * preloaded name, tag and version; then VACUUM and CHECKPOINT.
 */
async function deleteCreated(db) {
  await db.query('DELETE FROM plants WHERE id < 1 OR id > $1', [PRELOAD]);
  await db.query(
    `UPDATE plants SET name = 'Plant ' || id, tag = CASE WHEN id % ${TAG_EVERY} = 0 THEN 'fern' END, version = 1
      WHERE version <> 1`,
  );
  await db.query('VACUUM plants');
  await db.query('CHECKPOINT');
}

// ---------------------------------------------------------------------------
// The servers

async function startServer(target, databaseUrl, { measureStartup = false } = {}) {
  const port = await freePort();
  const common = { HOST: '127.0.0.1', PORT: String(port), AUTH_TOKENS: TOKEN };
  // Every target listens on as many sockets as the service.
  const followed = (keys) =>
    Object.fromEntries(
      [...keys, 'HTTP_LISTENERS']
        .filter((key) => SERVICE_ENV[key] !== undefined)
        .map((key) => [key, SERVICE_ENV[key]]),
    );
  const scripts = {
    floor: [
      'bench/floor-server.js',
      {
        ...common,
        DATABASE_URL: databaseUrl,
        // The floor batches creates as the service does (the same statements in flight), and
        // records webhook events when the service would.
        ...followed(['DATABASE_WRITE_CONCURRENCY', 'WEBHOOK_URLS']),
        RATE_LIMIT_PER_TOKEN,
      },
    ],
    'floor-nodb': [
      'bench/floor-server.js',
      {
        ...common,
        FLOOR_DATABASE: 'none',
        ...followed(['DATABASE_WRITE_CONCURRENCY', 'WEBHOOK_URLS']),
        RATE_LIMIT_PER_TOKEN,
      },
    ],
    ceiling: ['bench/ceiling-server.js', { ...common, ...followed([]) }],
    framework: ['bench/framework-server.js', { ...common, ...followed([]) }],
    service: ['dist/main.js', serviceEnvironment(common, databaseUrl)],
    baseline: [join(BASELINE_DIR ?? '.', 'dist/main.js'), serviceEnvironment(common, databaseUrl)],
    typical: [
      join(nestTypicalBuild ?? '.', 'dist/main.js'),
      nestTypicalEnvironment(port, databaseUrl, 'insert'),
    ],
    'ceiling-nest': [
      join(nestTypicalBuild ?? '.', 'dist/main.js'),
      nestTypicalEnvironment(port, databaseUrl, 'none'),
    ],
  };
  const [script, env] = scripts[target];
  const startedAt = performance.now();
  const server = spawnNode(target, script, env);
  server.base = `http://127.0.0.1:${port}`;
  if (measureStartup) {
    server.startupMs = round(await firstCreate(server, startedAt), 1);
  } else {
    await waitForPort(server, port);
  }
  return server;
}

/** The service's production configuration, for a build of it: the service, or the baseline. */
function serviceEnvironment(common, databaseUrl) {
  return {
    ...common,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    METRICS_ENABLED: 'true',
    RATE_LIMIT_PER_TOKEN,
    // Connections kept while the service idles, as the floor keeps its own: closed together in the
    // middle of the other's run, they stall it (docs/performance.md#pool-size-and-idle-connections).
    DATABASE_POOL_IDLE_TIMEOUT_MS: '0',
    ...SERVICE_ENV,
  };
}

/** nest-typical's own variables: one token (TOKEN), the port, and how it persists plants. */
function nestTypicalEnvironment(port, databaseUrl, persist) {
  return { NODE_ENV: 'production', PORT: String(port), DATABASE_URL: databaseUrl, TOKEN, PERSIST: persist };
}

/** The scratch folder nest-typical is built in (buildNestTypical). */
let nestTypicalBuild;

/**
 * A copy of nest-typical (read only where it lies), installed with npm ci and built with this
 * project's TypeScript, as its README says; in a scratch folder named after its files' contents,
 * kept for the next run.
 */
async function buildNestTypical(source) {
  const hash = createHash('sha256');
  for (const file of await filesUnder(source)) {
    hash.update(file).update(await readFile(join(source, file)));
  }
  const scratch = join(os.tmpdir(), `plant-store-nest-typical-${hash.digest('hex').slice(0, 16)}`);
  const built = join(scratch, '.built');
  if (
    await stat(built).then(
      () => true,
      () => false,
    )
  ) {
    return scratch;
  }
  console.log(`Building nest-typical (${source}) in ${scratch} …`);
  await rm(scratch, { recursive: true, force: true });
  await cp(source, scratch, { recursive: true, filter: (path) => !/\/(node_modules|dist)$/.test(path) });
  // Writable, for npm ci and the build.
  for (const file of ['', ...(await filesUnder(scratch, true))]) {
    const path = join(scratch, file);
    await chmod(path, (await stat(path)).mode | 0o200);
  }
  const env = { ...process.env, PATH: `${join(PROJECT_ROOT, 'node_modules/.bin')}:${process.env.PATH}` };
  await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: scratch, env });
  await run('npm', ['run', 'build'], { cwd: scratch, env });
  await writeFile(built, '');
  return scratch;
}

/** The paths under `dir`, sorted; without node_modules and dist; folders too when asked. */
async function filesUnder(dir, withFolders = false) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => withFolders || entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .filter((path) => !/^(node_modules|dist)(\/|$)/.test(path))
    .sort();
}

function spawnNode(target, script, env) {
  // Logs go straight to a file, as a log collector would take them: written, not thrown away,
  // and without this process relaying them (which would take CPU from the process under test).
  const logFile = join(os.tmpdir(), `plant-store-bench-${target}-${process.pid}.log`);
  const fd = openSync(logFile, 'a');
  const nodeOptions =
    DEPLOYED.includes(target) && SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: SERVICE_NODE_OPTIONS } : {};
  const cgroup = memoryCgroups[target];
  // In the memory cgroup from its first instruction: the shell joins it, then becomes node.
  const [command, args] = cgroup
    ? ['sh', ['-c', 'echo $$ > "$0/tasks" && exec "$@"', cgroup.path, process.execPath, script]]
    : [process.execPath, [script]];
  const child = spawn(command, args, {
    cwd: target === 'baseline' ? BASELINE_DIR : NEST_TYPICAL.includes(target) ? nestTypicalBuild : undefined,
    env: { PATH: process.env.PATH, ...env, ...nodeOptions },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  child.target = target;
  child.logFile = logFile;
  logFiles.push(logFile);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Milliseconds from `startedAt` to the first 200 on POST /plants. */
async function firstCreate(server, startedAt) {
  for (;;) {
    assertRunning(server);
    if (performance.now() - startedAt > 60_000) {
      throw new Error(`The ${server.target} answers no 200 to POST /plants; its log: ${server.logFile}`);
    }
    const ok = await fetch(`${server.base}/plants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: nextProbeId--, name: 'Start-up plant' }),
    }).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ok) {
      return performance.now() - startedAt;
    }
    await sleep(5);
  }
}

async function waitForPort(server, port) {
  for (let attempt = 0; attempt < 1200; attempt++) {
    assertRunning(server);
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.end(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) {
      return;
    }
    await sleep(50);
  }
  throw new Error(`The ${server.target} does not listen on port ${port}; its log: ${server.logFile}`);
}

// ---------------------------------------------------------------------------
// The contract check and the load

async function checkContract(db, floor, service) {
  const probes = contractProbes(TOKEN, PRELOAD);
  await deleteCreated(db);
  const floorAnswers = await answersOf(floor.base, probes);
  await deleteCreated(db);
  const serviceAnswers = await answersOf(service.base, probes);
  await deleteCreated(db);
  const differences = differencesOf(probes, floorAnswers, serviceAnswers);
  console.log(
    `Contract check: ${probes.length} requests, ` +
      (differences.length === 0
        ? 'the floor and the service answer them alike'
        : `${differences.length} differences between the floor and the service:`),
  );
  for (const { probe, what, floor: a, service: b } of differences) {
    console.log(`  ${probe}: ${what}: floor ${clip(a)}, service ${clip(b)}`);
  }
  return { requests: probes.length, differences };
}

async function measure(db, server, route, concurrency) {
  assertRunning(server);
  // Every run finds the preloaded plants alone, whatever ran before it.
  await deleteCreated(db);
  const cgroup = memoryCgroups[server.target];
  if (cgroup) {
    await cgroup.resetPeak();
  }
  if (WARMUP_S > 0) {
    await load(server.base, route, concurrency, WARMUP_S);
  }
  const cpuBefore = await cpuSeconds(server.pid);
  const result = await load(server.base, route, concurrency, DURATION_S);
  const cpuAfter = await cpuSeconds(server.pid);
  assertRunning(server);
  const cpuUs = Math.round(((cpuAfter - cpuBefore) * 1e6) / result.requests);
  result.cpuUsPerRequest = Number.isFinite(cpuUs) ? cpuUs : null;
  result.rssMb = await rssMb(server.pid);
  if (cgroup) {
    result.cgroupPeakMb = await cgroup.peakMb();
  }
  result.valid = result.non2xx === 0 && result.errors === 0 && result.late === 0 && result.requests > 0;
  return result;
}

async function load(base, route, concurrency, seconds) {
  const { script, method, tag } = ROUTES[route];
  const seed = randomInt(1, 2 ** 31);
  // Pages start at a random `after` chosen so that every page is full and has a next one.
  const maxAfter = PRELOAD - (PAGE_SIZE + 1) * (tag ? TAG_EVERY : 1);
  const idBase = method === 'POST' ? (nextIdBase += 1_000_000_000_000) : 0;
  if (loadGenerator === 'wrk') {
    const { stdout } = await run(
      'wrk',
      [
        // Two threads for the overload runs, as one would spend much of its time connecting.
        `-t${concurrency >= 256 ? 2 : 1}`,
        `-c${concurrency}`,
        `-d${seconds}s`,
        '--timeout',
        `${LATE_AFTER_S}s`,
        '-s',
        script,
        `${base}/plants`,
      ],
      {
        env: {
          ...process.env,
          BENCH_TOKEN: TOKEN,
          ID_BASE: String(idBase),
          MAX_ID: String(PRELOAD),
          MAX_AFTER: String(maxAfter),
          LIMIT: String(PAGE_SIZE),
          SEED: String(seed),
          ...(tag ? { TAG: tag } : {}),
        },
      },
    );
    const result = JSON.parse(stdout.split('WRK_RESULT ')[1]);
    return {
      rps: Math.round(result.requests / (result.duration_us / 1e6)),
      p50Ms: round(result.p50_us / 1000),
      p99Ms: round(result.p99_us / 1000),
      maxMs: round(result.max_us / 1000),
      requests: result.requests,
      errors: result.errors_connect + result.errors_read + result.errors_write,
      late: result.errors_timeout,
      non2xx: result.non2xx,
      seed,
    };
  }
  const { default: autocannon } = await import('autocannon');
  let id = idBase;
  const random = (max) => randomInt(0, max + 1);
  let patches = 0;
  const setupRequest =
    method === 'POST'
      ? (request) => ({ ...request, body: JSON.stringify({ id: id++, name: 'Bench plant', tag: 'bench' }) })
      : method === 'PATCH'
        ? (request) => ({
            ...request,
            path: `/plants/${1 + random(PRELOAD - 1)}`,
            body: JSON.stringify({
              name: `Bench plant ${++patches}`,
              ...[{}, {}, { tag: 'bench' }, { tag: null }][random(3)],
            }),
          })
        : route === 'get'
          ? (request) => ({ ...request, path: `/plants/${1 + random(PRELOAD - 1)}` })
          : (request) => ({
              ...request,
              path:
                ROUTES[route].path?.(random) ??
                `/plants?limit=${PAGE_SIZE}&after=${random(maxAfter)}${tag ? `&tag=${tag}` : ''}`,
            });
  const result = await autocannon({
    url: `${base}/plants`,
    method,
    connections: concurrency,
    duration: seconds,
    timeout: LATE_AFTER_S,
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}),
      ...(method === 'PATCH' ? { 'Content-Type': 'application/merge-patch+json' } : {}),
    },
    requests: [{ setupRequest }],
  });
  return {
    rps: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    requests: result.requests.total,
    errors: result.errors - result.timeouts,
    late: result.timeouts,
    non2xx: result.non2xx,
  };
}

/** CPU time (user and system) the process has used so far, from /proc/<pid>/stat. */
async function cpuSeconds(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // The fields after the command name (in parentheses): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Each service build's memory cgroup (--memory-limit), made for this run: cgroup v1, as root. */
const memoryCgroups = {};

async function rssMb(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Number.isNaN(kb) ? null : Math.round(kb / 1024);
}

// ---------------------------------------------------------------------------
// Results

/** The stack's bound on a route, in requests per second: 1 / bound = 1 / ceiling-nest + (1 / floor - 1 / floor-nodb). */
function boundOf({ floor, 'floor-nodb': floorWithoutDatabase, 'ceiling-nest': ceiling }) {
  if (!floor?.rps || !floorWithoutDatabase?.rps || !ceiling?.rps) {
    return null;
  }
  return Math.round(1 / (1 / ceiling.rps + 1 / floor.rps - 1 / floorWithoutDatabase.rps));
}

function ratio(a, b) {
  return a === undefined || a === null || b === undefined || b === null || b === 0 ? null : round(a / b);
}

/** The service (and the baseline) against the bound, the typical application, the floor and the ceilings. */
function ratios({ floor, ceiling, framework, typical, baseline, service, bound }) {
  if (!service) {
    return {};
  }
  return {
    serviceToBound: ratio(service.rps, bound),
    serviceToTypical: ratio(service.rps, typical?.rps),
    p99ServiceToTypical: ratio(service.p99Ms, typical?.p99Ms),
    cpuServiceToTypical: ratio(service.cpuUsPerRequest, typical?.cpuUsPerRequest),
    baselineToBound: ratio(baseline?.rps, bound),
    baselineToTypical: ratio(baseline?.rps, typical?.rps),
    p99BaselineToTypical: ratio(baseline?.p99Ms, typical?.p99Ms),
    serviceToFloor: ratio(service.rps, floor?.rps),
    p99ServiceToFloor: ratio(service.p99Ms, floor?.p99Ms),
    serviceToCeiling: ratio(service.rps, ceiling?.rps),
    p99ServiceToCeiling: ratio(service.p99Ms, ceiling?.p99Ms),
    serviceToFramework: ratio(service.rps, framework?.rps),
    serviceToBaseline: ratio(service.rps, baseline?.rps),
    p99ServiceToBaseline: ratio(service.p99Ms, baseline?.p99Ms),
    p99ServiceToFramework: ratio(service.p99Ms, framework?.p99Ms),
    rssServiceToFloor: ratio(service.rssMb ?? undefined, floor?.rssMb),
  };
}

/** Each figure's median over the rounds. */
function medianRuns(rounds) {
  return rounds[0].runs.map((first, index) => {
    const row = { route: first.route, concurrency: first.concurrency };
    for (const target of TARGETS) {
      if (!first[target]) {
        continue;
      }
      const results = rounds.map((each) => each.runs[index][target]);
      row[target] = {};
      for (const key of [
        'rps',
        'p50Ms',
        'p99Ms',
        'maxMs',
        'late',
        'cpuUsPerRequest',
        'rssMb',
        'cgroupPeakMb',
      ]) {
        if (results[0][key] === undefined) {
          continue;
        }
        const middle = median(results.map((result) => result[key]));
        row[target][key] =
          middle !== null && (key === 'rps' || key === 'rssMb') ? Math.round(middle) : middle;
      }
      row[target].valid = results.every((result) => result.valid);
    }
    row.bound = boundOf(row);
    row.ratios = ratios(row);
    return row;
  });
}

/** Start-up, process start to the first 200, against the floor's and the typical application's. */
function startupRatios(ms) {
  return {
    serviceToFloor: ratio(ms.service, ms.floor),
    serviceToTypical: ratio(ms.service, ms.typical),
    baselineToFloor: ratio(ms.baseline, ms.floor),
  };
}

/**
 * Issue 50's targets, at each route's highest concurrency: at least 0.9 of the bound and 2 times the
 * typical application's req/s, p99 at most 1.5 times the typical's (the medians of the rounds, with
 * their range over the rounds); start-up at most 3 times the floor's, or 600 ms.
 */
function targetsMet(results) {
  const summary = results.median ?? results.rounds[0].runs;
  const routes = [];
  for (const row of summary) {
    if (row.ratios.serviceToBound === null && row.ratios.serviceToTypical === null) {
      continue;
    }
    const highest = Math.max(
      ...summary.filter((other) => other.route === row.route).map((other) => other.concurrency),
    );
    if (row.concurrency !== highest || !row.service) {
      continue;
    }
    const range = (key) => {
      const values = results.rounds
        .map(({ runs }) =>
          runs.find((each) => each.route === row.route && each.concurrency === row.concurrency),
        )
        .map((each) => each?.ratios[key])
        .filter((value) => typeof value === 'number');
      return values.length === 0 ? null : [Math.min(...values), Math.max(...values)];
    };
    const figures = {
      route: row.route,
      concurrency: row.concurrency,
      serviceToBound: row.ratios.serviceToBound,
      serviceToBoundRange: range('serviceToBound'),
      serviceToTypical: row.ratios.serviceToTypical,
      serviceToTypicalRange: range('serviceToTypical'),
      p99ServiceToTypical: row.ratios.p99ServiceToTypical,
      p99ServiceToTypicalRange: range('p99ServiceToTypical'),
    };
    figures.met =
      (figures.serviceToBound === null || figures.serviceToBound >= 0.9) &&
      (figures.serviceToTypical === null || figures.serviceToTypical >= 2) &&
      (figures.p99ServiceToTypical === null || figures.p99ServiceToTypical <= 1.5);
    routes.push(figures);
  }
  const { service, floor } = results.startupMs;
  const startup = {
    serviceMs: service ?? null,
    serviceToFloor: results.startupRatios.serviceToFloor,
    met: service === undefined ? null : service <= 600 || (floor !== undefined && service <= 3 * floor),
  };
  return { routes, startup };
}

function invalidRuns(results) {
  return results.rounds.flatMap(({ round: number, runs }) =>
    runs.flatMap((row) =>
      TARGETS.filter((target) => row[target] && !row[target].valid).map((target) => ({
        round: number,
        route: row.route,
        concurrency: row.concurrency,
        target,
        non2xx: row[target].non2xx,
        errors: row[target].errors,
        late: row[target].late,
      })),
    ),
  );
}

async function logSizes(servers) {
  const sizes = {};
  for (const [target, server] of Object.entries(servers)) {
    sizes[target] = {
      file: server.logFile,
      bytes: await stat(server.logFile).then(
        (info) => info.size,
        () => null,
      ),
    };
  }
  return sizes;
}

function printRun(roundNumber, route, concurrency, target, result) {
  console.log(
    `round ${roundNumber}  ${ROUTES[route].label.padEnd(38)} c${String(concurrency).padEnd(3)} ${target.padEnd(12)} ` +
      `${String(result.rps).padStart(6)} req/s  p50 ${String(result.p50Ms).padStart(6)} ms  ` +
      `p99 ${String(result.p99Ms).padStart(7)} ms  CPU ${String(result.cpuUsPerRequest).padStart(4)} µs/req  ` +
      `RSS ${String(result.rssMb).padStart(3)} MB  ` +
      (result.cgroupPeakMb === undefined ? '' : `cgroup peak ${result.cgroupPeakMb} MB  `) +
      `non-2xx ${result.non2xx}  errors ${result.errors}  late ${result.late}` +
      (result.valid ? '' : '  INVALID'),
  );
}

function report(results) {
  const { machine: m } = results;
  console.log(
    `\n${results.label ? `${results.label}: ` : ''}${results.options.durationS} s per run after ${results.options.warmupS} s of warm-up, ` +
      `${results.preload.rows.toLocaleString('en')} preloaded plants, load generator ${results.loadGenerator}`,
  );
  console.log(
    `Machine: ${m.cores} × ${m.cpu}, ${m.memoryGb} GiB, Node ${m.node}, PostgreSQL ${m.postgres} ` +
      `(shared_buffers ${m.sharedBuffers}${m.hugePages ? `, huge pages ${m.hugePages}` : ''}, ` +
      `${m.jitAvailable ? 'JIT available' : 'no JIT'})` +
      (Object.keys(results.options.serviceEnv).length > 0
        ? `; service environment: ${Object.entries(results.options.serviceEnv)
            .map(([key, value]) => `${key}=${value}`)
            .join(' ')}`
        : ''),
  );
  if (m.hugePages === 'off') {
    console.log(
      "PostgreSQL's buffers are in 4 KiB pages, no huge pages being reserved: on millions of plants, its reads " +
        'fault and miss more (docs/performance.md#postgresqls-buffers-in-huge-pages)',
    );
  }
  for (const { round: number, runs } of results.rounds) {
    console.log(`\nRound ${number} of ${results.rounds.length}\n`);
    table(runs);
  }
  if (results.median) {
    console.log(`\nMedian of ${results.rounds.length} rounds\n`);
    table(results.median);
  }
  console.log(
    `\nStart-up (process start to the first 200 on POST /plants): ${Object.entries(results.startupMs)
      .map(([target, ms]) => `${target} ${ms} ms`)
      .join(', ')}` +
      (results.startupRatios.serviceToFloor === null
        ? ''
        : `; the service ${results.startupRatios.serviceToFloor}× the floor's`),
  );
  const shown = (figure, range) =>
    figure === null ? '–' : `${figure}${range && range[0] !== range[1] ? ` (${range[0]}–${range[1]})` : ''}`;
  if (
    results.targets.routes.some((route) => route.serviceToBound !== null || route.serviceToTypical !== null)
  ) {
    console.log(
      `\nTargets${results.median ? ` (medians of ${results.rounds.length} rounds, their range)` : ''}: ` +
        'at least 0.9× the bound and 2× the typical, p99 at most 1.5× the typical',
    );
    for (const route of results.targets.routes) {
      console.log(
        `  ${ROUTES[route.route].label} c${route.concurrency}: ${shown(route.serviceToBound, route.serviceToBoundRange)}× the bound, ` +
          `${shown(route.serviceToTypical, route.serviceToTypicalRange)}× the typical, ` +
          `p99 ${shown(route.p99ServiceToTypical, route.p99ServiceToTypicalRange)}× the typical's` +
          (route.met ? '' : '  SHORT'),
      );
    }
    if (results.targets.startup.met !== null) {
      console.log(
        `  Start-up: ${results.targets.startup.serviceMs} ms, ${shown(results.targets.startup.serviceToFloor)}× the floor's` +
          (results.targets.startup.met ? '' : '  SHORT'),
      );
    }
  }
  if (results.options.serviceNodeOptions || results.memoryCgroup) {
    console.log(
      `The service: NODE_OPTIONS ${results.options.serviceNodeOptions || '(none)'}` +
        (results.memoryCgroup
          ? `, in a ${results.options.memoryLimitMb} MiB memory cgroup: ${results.memoryCgroup.oomKills} processes killed for memory`
          : ''),
    );
  }
  if (results.contract) {
    console.log(
      `Contract check: ${results.contract.requests} requests, ${results.contract.differences.length} differences between the floor and the service`,
    );
  }
  if (results.valid) {
    console.log(
      `Every run is valid: no non-2xx answers, no socket errors, no request past ${results.options.lateAfterS} s.`,
    );
  } else {
    console.log(
      `INVALID runs (non-2xx answers, socket errors or requests past ${results.options.lateAfterS} s):`,
    );
    for (const run of results.invalid) {
      console.log(
        `  round ${run.round} ${ROUTES[run.route].label} c${run.concurrency} ${run.target}: ${run.non2xx} non-2xx, ${run.errors} errors, ${run.late} late`,
      );
    }
    console.log(
      `Logs, kept: ${Object.values(results.logs)
        .map(({ file }) => file)
        .join(', ')}`,
    );
  }
}

/** A column per target (req/s, p50/p99, CPU µs a request), the bound, then the service's ratios. */
function table(runs) {
  const targets = TARGETS.filter((target) => runs.some((row) => row[target]));
  const hasBound = runs.some((row) => row.bound !== null);
  const columns = [
    ['service/bound', 'serviceToBound'],
    ['service/typical', 'serviceToTypical'],
    ['p99 service/typical', 'p99ServiceToTypical'],
    ['service/floor', 'serviceToFloor'],
    ['p99 service/floor', 'p99ServiceToFloor'],
    ['service/ceiling', 'serviceToCeiling'],
    ['service/framework', 'serviceToFramework'],
    ['service/baseline', 'serviceToBaseline'],
    ['p99 service/baseline', 'p99ServiceToBaseline'],
    ['baseline/bound', 'baselineToBound'],
    ['baseline/typical', 'baselineToTypical'],
  ].filter(([, key]) => runs.some((row) => row.ratios[key] !== null && row.ratios[key] !== undefined));
  const headings = [
    'route',
    'c',
    ...targets.map((target) => `${target} req/s (p50/p99 ms) CPU µs`),
    ...(hasBound ? ['bound req/s'] : []),
    ...columns.map(([heading]) => heading),
  ];
  console.log(`| ${headings.join(' | ')} |`);
  console.log(`| ${headings.map(() => '---').join(' | ')} |`);
  const cell = (result) =>
    result
      ? `${result.rps} (${result.p50Ms}/${result.p99Ms}) ${result.cpuUsPerRequest}${result.valid ? '' : ' INVALID'}`
      : '–';
  const value = (number) => (number === null || number === undefined ? '–' : String(number));
  for (const row of runs) {
    const cells = [
      ROUTES[row.route].label,
      row.concurrency,
      ...targets.map((target) => cell(row[target])),
      ...(hasBound ? [value(row.bound)] : []),
      ...columns.map(([, key]) => value(row.ratios[key])),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
}

async function machine(db) {
  const { rows } = await db.query(
    "SELECT current_setting('server_version') AS server_version, current_setting('shared_buffers') AS shared_buffers," +
      " current_setting('huge_pages_status', true) AS huge_pages, pg_jit_available() AS jit_available",
  );
  const wrk = await run('wrk', ['--version']).then(
    ({ stdout }) => stdout,
    (error) => error.stdout ?? '',
  );
  return {
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: rows[0].server_version,
    sharedBuffers: rows[0].shared_buffers,
    // Whether the buffers sit in huge pages (PostgreSQL 17 and later say; null before): with 4 KiB pages, reads
    // spread over gigabytes of buffers slow down more as the table grows (docs/performance.md).
    hugePages: rows[0].huge_pages,
    // Whether the server can compile statements (built with LLVM): the service turns it off for its sessions.
    jitAvailable: rows[0].jit_available,
    kernel: os.release(),
    wrk: /^wrk (\S+)/.exec(wrk)?.[1] ?? null,
  };
}

// ---------------------------------------------------------------------------
// Options and helpers

function usage(message) {
  console.error(`npm run bench: ${message} (see npm run bench -- --help)`);
  process.exit(2);
}

/**
 * Whether `target` is measured on `route`: the node:http and framework ceilings answer POST /plants
 * alone; the floor has no PATCH; nest-typical creates, reads by id and pages, without a tag filter.
 */
function answers(target, route) {
  switch (target) {
    case 'ceiling':
    case 'framework':
      return route === 'create';
    case 'typical':
    case 'ceiling-nest':
      return ['create', 'get', 'list'].includes(route);
    case 'floor':
    case 'floor-nodb':
      return route !== 'patch';
    default:
      return true;
  }
}

function positiveNumber(name, text, zeroAllowed = false) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < (zeroAllowed ? 0 : 1)) {
    usage(`--${name} must be a whole number${zeroAllowed ? '' : ' above 0'}, not ${text}`);
  }
  return value;
}

/**
 * shared_buffers for the embedded PostgreSQL: none for its default (128MB), or a
 * size; auto, 160 bytes a preloaded plant (room for the table and its two
 * indexes), at least 128MB, at most a quarter of the memory.
 */
function sharedBuffers(text) {
  if (text === 'default') {
    return undefined;
  }
  if (/^\d+(kB|MB|GB)$/.test(text)) {
    return text;
  }
  if (text !== 'auto') {
    usage(`--shared-buffers must be auto, default or a size such as 512MB, not ${text}`);
  }
  const mb = Math.ceil((PRELOAD * 160) / 2 ** 20);
  return `${Math.min(Math.max(mb, 128), Math.floor(os.totalmem() / 4 / 2 ** 20))}MB`;
}

function numberList(name, text) {
  return text.split(',').map((item) => positiveNumber(name, item.trim()));
}

function nameList(name, text, allowed) {
  const names = text.split(',').map((item) => item.trim());
  const unknown = names.filter((item) => !allowed.includes(item));
  if (unknown.length > 0 || names.length === 0) {
    usage(`--${name} takes ${allowed.join(', ')}; not ${unknown.join(', ')}`);
  }
  return names;
}

function serviceEnv(pairs) {
  const env = {};
  for (const pair of pairs) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(pair);
    if (!match) {
      usage(`--service-env takes KEY=VALUE, not ${pair}`);
    }
    env[match[1]] = match[2];
  }
  return env;
}

/** The service's extra environment as recorded: values that may be secrets are masked. */
function maskedEnv(env) {
  return Object.fromEntries(
    Object.entries(env).map(([key, value]) => [
      key,
      /TOKEN|SECRET|PASSWORD|HEADERS|KEY|AUTH/i.test(key) ? '***' : value,
    ]),
  );
}

function median(values) {
  const numbers = values.filter((value) => typeof value === 'number').sort((a, b) => a - b);
  if (numbers.length === 0) {
    return null;
  }
  const middle = Math.floor(numbers.length / 2);
  return numbers.length % 2 === 1 ? numbers[middle] : round((numbers[middle - 1] + numbers[middle]) / 2);
}

function round(value, digits = 2) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function clip(value) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** `wrk --version` prints its version and exits 1; a missing wrk fails to spawn (ENOENT). */
async function hasWrk() {
  return run('wrk', ['--version']).then(
    () => true,
    (error) => error.code !== 'ENOENT',
  );
}

// Ctrl-C: stop the servers and the embedded PostgreSQL (which runs in a session of its own) too.
let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
  console.error('\nInterrupted: stopping the servers and the database …');
  for (const child of children) {
    child.kill('SIGTERM');
  }
});

try {
  await main();
} catch (error) {
  if (!interrupted) {
    throw error;
  }
  await Promise.all(logFiles.map((file) => rm(file, { force: true })));
  process.exitCode = 130;
}
