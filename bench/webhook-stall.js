/**
 * Webhook delivery beside a subscriber that never answers: how many of 300
 * `plant.created` events reach a healthy subscriber, and when, with the
 * default timeout and poll interval.
 *
 *   npm run build:service
 *   PG_ADMIN_URL=postgres://postgres@127.0.0.1:5432 node bench/webhook-stall.js [SERVICE_DIR]
 *
 * SERVICE_DIR is a built checkout (this one by default; an earlier build to
 * compare with). A database named `plant_store_bench_webhooks` is made anew
 * on that server for each run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const CHANGES = 300;
const MARKS_S = [1, 5, 15, 30, 60];
const DATABASE = 'plant_store_bench_webhooks';
const TOKEN = 'webhook-stall-bench-token-0123456789';
const PORT = 3990;

const admin = process.env.PG_ADMIN_URL;
if (!admin) {
  console.error('usage: PG_ADMIN_URL=postgres://… node bench/webhook-stall.js [SERVICE_DIR]');
  process.exit(2);
}
const serviceDir = resolve(process.argv[2] ?? '.');
const databaseUrl = new URL(admin);
databaseUrl.pathname = `/${DATABASE}`;
for (const sql of [`DROP DATABASE IF EXISTS ${DATABASE}`, `CREATE DATABASE ${DATABASE}`]) {
  execFileSync('psql', [admin, '-qc', sql], {
    env: { ...process.env, PGOPTIONS: '--client-min-messages=warning' },
  });
}

const firstSeen = new Map();
const healthy = createServer((request, response) => {
  request.resume().on('end', () => {
    const id = request.headers['webhook-id'];
    if (!firstSeen.has(id)) {
      firstSeen.set(id, Date.now());
    }
    response.writeHead(200).end();
  });
});
const held = [];
const stalled = createTcpServer((socket) => held.push(socket.on('error', () => {})));
await new Promise((done) => healthy.listen(0, '127.0.0.1', done));
await new Promise((done) => stalled.listen(0, '127.0.0.1', done));

const service = spawn('node', ['dist/main.js'], {
  cwd: serviceDir,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl.href,
    AUTH_TOKENS: TOKEN,
    HOST: '127.0.0.1',
    PORT: String(PORT),
    LOG_LEVEL: 'warn',
    WEBHOOK_URLS: [stalled, healthy]
      .map((server) => `http://127.0.0.1:${server.address().port}/hook`)
      .join(','),
    WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
  },
});
const base = `http://127.0.0.1:${PORT}`;
for (
  let tries = 0;
  !(await fetch(`${base}/health/ready`).then(
    (r) => r.ok,
    () => false,
  ));
  tries++
) {
  if (tries === 150) throw new Error('the service did not start');
  await sleep(200);
}

// Ten at a time, as a busy client would send them.
for (let first = 0; first < CHANGES; first += 10) {
  await Promise.all(
    Array.from({ length: 10 }, async (_, offset) => {
      const id = 1_000 + first + offset;
      const answer = await fetch(`${base}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, name: `Plant ${id}` }),
      });
      if (answer.status !== 200) throw new Error(`POST /plants answered ${answer.status}`);
    }),
  );
}
const lastChange = Date.now();
for (const seconds of MARKS_S) {
  await sleep(lastChange + seconds * 1_000 - Date.now());
  console.log(
    `${seconds} s after the last change: ${firstSeen.size} of ${CHANGES} at the healthy subscriber`,
  );
  if (firstSeen.size === CHANGES) break;
}
const lastDelivery = Math.max(lastChange, ...firstSeen.values());
console.log(
  `Its last event arrived ${((lastDelivery - lastChange) / 1_000).toFixed(1)} s after the last change`,
);

service.kill('SIGTERM');
await new Promise((done) => service.once('exit', done));
held.forEach((socket) => socket.destroy());
healthy.close();
stalled.close();
