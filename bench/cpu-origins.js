/**
 * Where a CPU profile's time went, by origin: the package (or the service's
 * source file) each sample's function came from, rather than the bundle's
 * chunk it runs in.
 *
 *   npm run build:service
 *   node --cpu-prof --cpu-prof-dir=prof dist/main.js   # under load, then stop it
 *   node bench/cpu-origins.js prof/*.cpuprofile [--functions 30]
 *
 * Self time, as a share of the profile's samples. Functions of the bundle are
 * placed through its source maps (Node's own `SourceMap`); functions loaded
 * from node_modules (pg) by their path; Node's own by their `node:` module;
 * the rest (`(idle)`, `(garbage collector)`, native functions) by their name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { functions: { type: 'string', default: '0' } },
});
if (positionals.length !== 1) {
  console.error('usage: node bench/cpu-origins.js PROFILE.cpuprofile [--functions N]');
  process.exit(2);
}

const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));

const sourceMaps = new Map();
function sourceMapOf(url) {
  if (!sourceMaps.has(url)) {
    const file = `${url.startsWith('file:') ? fileURLToPath(url) : url}.map`;
    sourceMaps.set(url, existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : undefined);
  }
  return sourceMaps.get(url);
}

/** `pg`, `@nestjs/core`, `src/core/http/json.ts`, `node:_http_outgoing`, `(idle)`, … */
function originOf({ url, lineNumber, columnNumber, functionName }) {
  if (!url) {
    return functionName || '(native)';
  }
  if (url.startsWith('node:')) {
    return url;
  }
  const source = url.includes('/node_modules/')
    ? url
    : sourceMapOf(url)?.findEntry(lineNumber, columnNumber)?.originalSource;
  if (!source) {
    return `${url.replace(/.*\/dist\//, 'dist/')} (not mapped)`;
  }
  if (source.includes('node_modules/')) {
    const [scope, name] = source.split('node_modules/').pop().split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  return source.replace(/.*\/(src|dist)\//, '$1/');
}

const selfTime = new Map();
let total = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  selfTime.set(id, (selfTime.get(id) ?? 0) + delta);
  total += delta;
});

const byOrigin = new Map();
const byFunction = new Map();
for (const [id, time] of selfTime) {
  const { callFrame } = nodes.get(id);
  const origin = originOf(callFrame);
  byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + time);
  const name = `${callFrame.functionName || '(anonymous)'}  [${origin}]`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + time);
}

function print(title, shares, count) {
  console.log(`${title}\n`);
  for (const [name, time] of [...shares].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
  console.log();
}

print(`Self time by origin (${(total / 1e6).toFixed(1)} s sampled)`, byOrigin, 40);
if (Number(values.functions) > 0) {
  print('Self time by function', byFunction, Number(values.functions));
}
