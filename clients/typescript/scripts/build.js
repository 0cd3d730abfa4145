/**
 * Builds the package twice from the same sources, each with its
 * declarations: dist/esm, ES modules for `import`, and dist/cjs, CommonJS
 * for `require()`, as package.json's `exports` name them. dist/cjs gets a
 * package.json of its own saying `"type": "commonjs"`, which Node.js and
 * TypeScript read to take its files for CommonJS (the package's own says
 * `module`). The TypeScript is the one the workspace declares, the
 * service's.
 *
 * Usage (from the repository's root): npm run build --workspace @plant-store/client
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

// What an earlier build left (a file since renamed) must not be packed.
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
for (const project of ['tsconfig.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
}
writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), '{ "type": "commonjs" }\n');
