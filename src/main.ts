/**
 * The service's entry point. Before anything else is loaded, Node's module
 * compile cache is turned on, so that the next start reads the compiled code
 * of every module from the cache instead of compiling it again, and so are
 * source maps, so that a stack trace names the TypeScript file and line
 * (`scripts/bundle.js`); then tracing starts when configured, as it must
 * patch pg and node:http before the application loads them
 * (`core/tracing/tracing.ts`); then the service starts (`bootstrap.ts`).
 */
import { enableCompileCache, setSourceMapsSupport } from 'node:module';

enableCompileCache();
setSourceMapsSupport(true);

const { startTracing } = await import('./core/tracing/tracing.js');
await startTracing();

await import('./bootstrap.js');
