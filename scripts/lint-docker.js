/**
 * A syntax check of the container files that needs no Docker engine:
 * - the Dockerfile's CMD, which runs `node dist/main.js` with no Node.js flags: memory
 *   settings are the deployment's (NODE_OPTIONS beside its memory limit), not the image's;
 * - the Dockerfile, through dockerfile-utils (the parser and validator behind
 *   editors' Dockerfile support);
 * - docker-compose.yml, through `docker compose config` (or the standalone
 *   `docker-compose`), when one is installed;
 * - the client's address: deploy/nginx.conf sets X-Forwarded-For to the address it saw
 *   (appended to, the header keeps whatever the client wrote), and compose's
 *   TRUST_PROXY is a hop count (a subnet trusts every address in it to write the header).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { validate } from 'dockerfile-utils';

let failed = false;

const dockerfile = readFileSync('Dockerfile', 'utf8');
for (const problem of validate(dockerfile)) {
  failed = true;
  console.error(`Dockerfile:${problem.range.start.line + 1}: ${problem.message}`);
}

const command = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]');
const expected = ['node', 'dist/main.js'];
if (JSON.stringify(command) !== JSON.stringify(expected) || /^ENV\b.*NODE_OPTIONS/m.test(dockerfile)) {
  failed = true;
  console.error(
    `Dockerfile: CMD should be ${JSON.stringify(expected)}, and NODE_OPTIONS unset: memory settings are the deployment's`,
  );
}

const nginx = readFileSync('deploy/nginx.conf', 'utf8');
const forwardedFor = /^\s*proxy_set_header\s+X-Forwarded-For\s+(\S+);/im.exec(nginx)?.[1];
if (forwardedFor !== '$remote_addr') {
  failed = true;
  console.error(
    `deploy/nginx.conf: X-Forwarded-For should be $remote_addr, the address nginx saw (is ${forwardedFor ?? 'unset'})`,
  );
}
const trustProxy = /^\s*TRUST_PROXY:\s*'?([^'\s]*)'?\s*$/m.exec(
  readFileSync('docker-compose.yml', 'utf8'),
)?.[1];
if (!/^\d+$/.test(trustProxy ?? '')) {
  failed = true;
  console.error(
    `docker-compose.yml: TRUST_PROXY should count the proxies in front (1), not name addresses (is ${trustProxy ?? 'unset'})`,
  );
}

const env = { ...process.env, AUTH_TOKENS: process.env.AUTH_TOKENS ?? 'syntax-check-token-0123456789' };
const composeCommand = [
  ['docker', ['compose']],
  ['docker-compose', []],
].find(([command, prefix]) => {
  try {
    execFileSync(command, [...prefix, 'version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});
const composeChecked = composeCommand !== undefined;
if (composeCommand) {
  const [command, prefix] = composeCommand;
  try {
    execFileSync(command, [...prefix, '--file', 'docker-compose.yml', 'config', '--quiet'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    failed = true;
    console.error(`docker-compose.yml: ${String(error.stderr ?? '').trim() || error.message}`);
  }
}
if (!composeChecked) {
  console.warn(
    'docker-compose.yml: not checked (neither `docker compose` nor `docker-compose` is installed)',
  );
}

if (failed) {
  process.exit(1);
}
console.log(`Dockerfile${composeChecked ? ' and docker-compose.yml' : ''}: OK`);
