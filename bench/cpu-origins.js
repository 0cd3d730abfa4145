/**
 * Where a CPU profile's time went, by origin: the package (or the service's
 * source file) each sample's function came from, rather than the bundle's
 * chunk it runs in; and with --pieces, by the per-request piece that spent it.
 *
 *   npm run build:service
 *   node --cpu-prof --cpu-prof-dir=prof dist/main.js   # under load, then stop it
 *   node bench/cpu-origins.js prof/*.cpuprofile [--functions 30]
 *   node bench/cpu-origins.js prof/*.cpuprofile --pieces [--after 5] [--cpu-us 300]
 *
 * Self time, as a share of the profile's samples. Functions of the bundle are
 * placed through its source maps (Node's own `SourceMap`); functions loaded
 * from node_modules (pg) by their path; Node's own by their `node:` module;
 * the rest (`(idle)`, `(garbage collector)`, native functions) by their name.
 *
 * --pieces gives each sample to the piece of the request's way that spent it
 * (PIECES, below): the header a middleware sets, the regular expression it
 * runs or the hash it computes is that middleware's. The shares are of the
 * busy samples (idle left out);
 * --after skips the first seconds (the start-up), and --cpu-us (the bench's
 * CPU µs per request) turns each share into µs per request.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    functions: { type: 'string', default: '0' },
    pieces: { type: 'boolean', default: false },
    after: { type: 'string', default: '0' },
    'cpu-us': { type: 'string' },
  },
});
if (positionals.length !== 1) {
  console.error(
    'usage: node bench/cpu-origins.js PROFILE.cpuprofile [--functions N] [--pieces [--after S] [--cpu-us N]]',
  );
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
function originOf(callFrame) {
  const source = sourceOf(callFrame);
  if (source.includes('node_modules/')) {
    const [scope, name] = source.split('node_modules/').pop().split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  return source;
}

/** The file a function comes from (`node_modules/@nestjs/common/pipes/validation.pipe.js`, `src/…`), or its name. */
function sourceOf({ url, lineNumber, columnNumber, functionName }) {
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
  return source.includes('node_modules/')
    ? `node_modules/${source.split('node_modules/').pop()}`
    : source.replace(/.*\/(src|dist)\//, '$1/');
}

const selfTime = new Map();
let total = 0;
const skipUntil = profile.startTime + Number(values.after) * 1e6;
let time = profile.startTime;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  time += delta;
  if (time < skipUntil) {
    return;
  }
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

/**
 * The pieces of a request's way, each a test of a function's source (and name). A sample is given,
 * on its stack below the router (whatever a middleware's next() runs belongs to the later layers),
 * to the leaf's piece if it is a socket call or the garbage collector, else to the innermost feature
 * on it (a header helmet sets, a Reflector lookup the throttler makes), else to the innermost piece
 * of the framework (Nest, Express, node:http); a frame none holds for (Node's own, a regular
 * expression, a native call) is its caller's.
 */
const LEAF = 'leaf';
const FEATURE = 'feature';
const FRAMEWORK = 'framework';
const PIECES = [
  [
    'socket reads and writes',
    LEAF,
    (source, name) =>
      /^(writeUtf8String|writeBuffer|writev|writeLatin1String|onStreamRead|readStart|readStop)$/.test(name) &&
      !source.startsWith('node:'),
  ],
  ['garbage collection', LEAF, (_source, name) => name === '(garbage collector)'],
  [
    'body: read and parsed',
    FEATURE,
    (source, name) =>
      /src\/core\/http\/json-body\.parser\.ts$/.test(source) ||
      (/src\/core\/http\/json\.ts$/.test(source) && !/^(stringifyJson|bigintAsNumber)$/.test(name)) ||
      /node_modules\/(raw-body|type-is|content-type|media-typer|bytes|unpipe|iconv-lite)\//.test(source),
  ],
  [
    'pipes: ValidationPipe (class-transformer, class-validator), ParseInt64Pipe',
    FEATURE,
    (source) =>
      /node_modules\/(class-validator|class-transformer|validator|libphonenumber-js)\/|node_modules\/@nestjs\/common\/pipes\/|node_modules\/@nestjs\/core\/pipes\/|src\/core\/validation\/|src\/core\/common\/int64\.ts|src\/.*\.dto\.ts$|src\/.*\.query\.ts$/.test(
        source,
      ),
  ],
  ['bearer guard', FEATURE, (source) => /src\/core\/auth\/|node:internal\/crypto\/hash/.test(source)],
  [
    'throttler and its RateLimit fields',
    FEATURE,
    (source) => /node_modules\/@nestjs\/throttler\/|src\/core\/rate-limit\//.test(source),
  ],
  ['helmet', FEATURE, (source) => /node_modules\/helmet\//.test(source)],
  [
    'request id and its context',
    FEATURE,
    (source) =>
      /src\/core\/http\/request-id\.ts|src\/core\/logging\/request-context\.ts|node_modules\/nestjs-cls\/|node:async_hooks|node:internal\/crypto\/random/.test(
        source,
      ),
  ],
  [
    'access log',
    FEATURE,
    (source) =>
      /node_modules\/(pino|sonic-boom|quick-format-unescaped|atomic-sleep|thread-stream)\/|src\/core\/logging\/|node:fs$/.test(
        source,
      ),
  ],
  [
    'metrics',
    FEATURE,
    (source, name) =>
      /node_modules\/prom-client\//.test(source) ||
      (/src\/core\/http\/http-edge\.ts$/.test(source) && /^(record|count|observe)$/.test(name)) ||
      /\.metrics\.ts$/.test(source),
  ],
  ['tracing', FEATURE, (source) => /node_modules\/@opentelemetry\//.test(source)],
  ['ETag', FEATURE, (source) => /src\/core\/http\/conditional-requests\.ts$/.test(source)],
  [
    'the answer: serialised and sent (res.json, res.send)',
    FEATURE,
    (source, name) =>
      (/node_modules\/express\/lib\/response\.js/.test(source) && /^(json|send)$/.test(name)) ||
      /src\/core\/http\/json-express\.adapter\.ts$|node_modules\/@nestjs\/platform-express\/adapters\/|node_modules\/@nestjs\/core\/router\/router-response-controller/.test(
        source,
      ) ||
      /^(stringifyJson|bigintAsNumber)$/.test(name),
  ],
  [
    'the HTTP edge (its own code)',
    FEATURE,
    (source) => /src\/core\/http\/http-edge\.ts$|src\/core\/lifecycle\//.test(source),
  ],
  [
    'database: TypeORM, pg, the repository',
    FEATURE,
    (source) =>
      /node_modules\/(typeorm|pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|buffer-writer|packet-reader)\/|src\/core\/database\/|src\/plants\/plants\.(repository|service)\.ts|src\/plants\/batch-loader\.ts/.test(
        source,
      ),
  ],
  ['the handler (controllers, services)', FEATURE, (source) => /^src\//.test(source)],
  [
    'Nest (routing to the handler, guards, interceptors)',
    FRAMEWORK,
    (source) => /node_modules\/@nestjs\/(core|common)\/|node_modules\/rxjs\//.test(source),
  ],
  [
    'Express and its router',
    FRAMEWORK,
    (source) =>
      /node_modules\/(express|router|path-to-regexp|parseurl|finalhandler|encodeurl|qs|statuses|http-errors|depd|on-finished|ee-first|mime-types|mime-db|fresh|vary)\//.test(
        source,
      ),
  ],
  ['node:http (parsing, responses)', FRAMEWORK, (source) => /^node:_http|^node:http$/.test(source)],
];
const OTHER = 'other (Node, V8, the event loop)';

function printPieces() {
  const parents = new Map();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      parents.set(child, node.id);
    }
  }
  const pieceOfFrame = (id) => {
    const { callFrame } = nodes.get(id);
    const source = sourceOf(callFrame);
    return {
      source,
      piece: PIECES.find(([, , holds]) => holds(source, callFrame.functionName)),
    };
  };
  const pieceOf = (leaf) => {
    const own = pieceOfFrame(leaf).piece;
    if (own?.[1] === LEAF) {
      return own[0];
    }
    let framework;
    for (let id = leaf; id !== undefined; id = parents.get(id)) {
      const { source, piece } = pieceOfFrame(id);
      if (/node_modules\/router\//.test(source)) {
        return framework ?? 'Express and its router';
      }
      if (piece?.[1] === FEATURE) {
        return piece[0];
      }
      framework ??= piece?.[1] === FRAMEWORK ? piece[0] : undefined;
    }
    return framework ?? OTHER;
  };
  const byPiece = new Map();
  let busy = 0;
  for (const [id, time] of selfTime) {
    if (nodes.get(id).callFrame.functionName === '(idle)') {
      continue;
    }
    busy += time;
    const piece = pieceOf(id);
    byPiece.set(piece, (byPiece.get(piece) ?? 0) + time);
  }
  const cpuUs = values['cpu-us'] === undefined ? undefined : Number(values['cpu-us']);
  console.log(
    `Busy time by piece (${(busy / 1e6).toFixed(1)} s busy of ${(total / 1e6).toFixed(1)} s sampled)` +
      `${cpuUs ? `, as µs of ${cpuUs} µs per request` : ''}\n`,
  );
  for (const [piece, time] of [...byPiece].sort((a, b) => b[1] - a[1])) {
    const share = time / busy;
    console.log(
      `${(100 * share).toFixed(1).padStart(5)}%  ${cpuUs ? `${(share * cpuUs).toFixed(1).padStart(6)} µs  ` : ''}${piece}`,
    );
  }
}

if (values.pieces) {
  printPieces();
} else {
  print(`Self time by origin (${(total / 1e6).toFixed(1)} s sampled)`, byOrigin, 40);
  if (Number(values.functions) > 0) {
    print('Self time by function', byFunction, Number(values.functions));
  }
}
