/**
 * The runtime is chosen in one place and stated in five; this fails when they drift:
 * - package.json devDependencies.node: the exact Node.js release npm installs into
 *   node_modules, which every npm script (start, test, bench) runs on;
 * - package.json engines.node: must admit that release, and nothing of another major;
 * - the Dockerfile's NODE_VERSION: the image's base, node:<release>-bookworm-slim;
 * - README.md: names the release;
 * - the running node: run through npm, this script must itself be on that release.
 */
import { readFileSync } from 'node:fs';

const problems = [];
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const release = pkg.devDependencies?.node;

if (!/^\d+\.\d+\.\d+$/.test(release ?? '')) {
  problems.push(`package.json: devDependencies.node must be an exact release (x.y.z), not ${release}`);
} else {
  const [major] = release.split('.').map(Number);
  const engines = /^>=(\d+)\.(\d+)\.(\d+) <(\d+)$/.exec(pkg.engines?.node ?? '');
  if (!engines) {
    problems.push(`package.json: engines.node must read ">=x.y.z <N", not ${pkg.engines?.node}`);
  } else {
    const [, minMajor, minMinor, minPatch, below] = engines.map(Number);
    const admits =
      compare(release.split('.').map(Number), [minMajor, minMinor, minPatch]) >= 0 && major < below;
    if (!admits || minMajor !== major || below !== major + 1) {
      problems.push(
        `package.json: engines.node (${pkg.engines.node}) must admit ${release} and Node.js ${major} only`,
      );
    }
  }

  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const base = /^ARG NODE_VERSION=(\S+)$/m.exec(dockerfile)?.[1];
  if (base !== release) {
    problems.push(`Dockerfile: ARG NODE_VERSION is ${base}, package.json's node is ${release}`);
  }
  if (!/^FROM node:\$\{NODE_VERSION\}-bookworm-slim\b/m.test(dockerfile)) {
    problems.push('Dockerfile: the stages must start FROM node:${NODE_VERSION}-bookworm-slim');
  }

  const readme = readFileSync('README.md', 'utf8');
  if (!readme.includes(`Node.js ${release}`)) {
    problems.push(`README.md: does not name the runtime, Node.js ${release}`);
  }

  if (process.version !== `v${release}`) {
    problems.push(
      `this check runs on Node.js ${process.version}, not ${release}: run it through npm (npm run lint), after npm ci`,
    );
  }
}

function compare(left, right) {
  for (let index = 0; index < 3; index++) {
    if (left[index] !== right[index]) {
      return left[index] - right[index];
    }
  }
  return 0;
}

if (problems.length > 0) {
  for (const problem of problems) {
    console.error(problem);
  }
  process.exit(1);
}
console.log(`Runtime: Node.js ${release} in package.json, engines, the Dockerfile and the README: OK`);
