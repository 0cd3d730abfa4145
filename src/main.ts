/**
 * Before anything else loads: the compile cache, so that the next start skips compiling; source maps,
 * so that stack traces name `.ts` files; then tracing, which must patch pg and node:http first.
 */
import { enableCompileCache, setSourceMapsSupport } from 'node:module';

enableCompileCache();
setSourceMapsSupport(true);

const { startTracing } = await import('./core/tracing/tracing.js');
await startTracing();

await import('./bootstrap.js');
