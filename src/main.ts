/**
 * The service's entry point. Node's module compile cache is turned on before
 * anything else is loaded, so that the next start reads the compiled code of
 * every module from the cache instead of compiling it again; then tracing
 * starts when configured, as it must patch pg and node:http before the
 * application loads them (`core/tracing/tracing.ts`); then the service starts
 * (`bootstrap.ts`).
 */
import { enableCompileCache } from 'node:module';

enableCompileCache();

const { startTracing } = await import('./core/tracing/tracing.js');
await startTracing();

await import('./bootstrap.js');
