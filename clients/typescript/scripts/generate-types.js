/**
 * Generates src/generated/openapi.ts from the service's committed openapi.yaml
 * with openapi-typescript. `--check` writes nothing and fails when the
 * committed file is not what generation gives, so that a change to the
 * interface cannot go unnoticed by the client.
 *
 * Usage (from the repository's root): npm run generate --workspace @plant-store/client [-- --check]
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const DOCUMENT = new URL('../../../openapi.yaml', import.meta.url);
const OUTPUT = new URL('../src/generated/openapi.ts', import.meta.url);
const COMMAND = 'npm run generate --workspace @plant-store/client';

const HEADER = `/**
 * Generated from openapi.yaml by openapi-typescript: do not edit. Regenerate it with
 * \`${COMMAND}\` (or \`npm run openapi\`, which first rewrites openapi.yaml).
 */

`;

const BIGINT = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);

/** The generated types, as the file holds them. */
async function generate() {
  const ast = await openapiTS(DOCUMENT, {
    // Ids are int64: a double cannot hold every one of them, so the client reads and types them as bigints.
    transform: (schema) => (schema.format === 'int64' ? BIGINT : undefined),
  });
  return HEADER + astToString(ast);
}

const generated = await generate();
if (process.argv.includes('--check')) {
  const committed = await readFile(OUTPUT, 'utf8').catch(() => '');
  if (committed !== generated) {
    process.stderr.write(`${fileURLToPath(OUTPUT)} is not in step with openapi.yaml: run \`${COMMAND}\`\n`);
    process.exitCode = 1;
  }
} else {
  await writeFile(OUTPUT, generated);
}
