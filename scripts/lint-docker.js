/**
 * A syntax check of the container files that needs no Docker engine:
 * - the Dockerfile's CMD, which must run node with package.json's config.nodeOptions;
 * - the Dockerfile, through dockerfile-utils (the parser and validator behind
 *   editors' Dockerfile support);
 * - docker-compose.yml, through `docker compose config` (or the standalone
 *   `docker-compose`), when one is installed.
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

// The image runs the service with the same V8 flags as `npm start` (package.json's config.nodeOptions).
const { config } = JSON.parse(readFileSync('package.json', 'utf8'));
const command = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]');
const expected = ['node', ...config.nodeOptions.split(' '), 'dist/main.js'];
if (JSON.stringify(command) !== JSON.stringify(expected)) {
  failed = true;
  console.error(`Dockerfile: CMD should be ${JSON.stringify(expected)} (package.json config.nodeOptions)`);
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
