/**
 * The service's entry point. Node's module compile cache is turned on before
 * anything else is loaded, so that the next start reads the compiled code of
 * every module from the cache instead of compiling it again; then the
 * service starts (`bootstrap.ts`).
 */
import { enableCompileCache } from 'node:module';

enableCompileCache();

await import('./bootstrap.js');
