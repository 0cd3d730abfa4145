import 'reflect-metadata';

import { readFile, writeFile } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';

import { load, YAMLException } from 'js-yaml';

import { openApiYaml } from './openapi-yaml.js';

import { previewOpenApiDocument } from './preview-document.js';

export const OPENAPI_FILE = 'openapi.yaml';

/** How many differences `--check` names before it says how many more there are. */
const NAMED_DIFFERENCES = 10;

/** With `--check` (`npm run lint`), fails when the committed file differs: API changes are reviewed there. */
async function writeOpenApi(check: boolean): Promise<void> {
  const emitted = openApiYaml(await previewOpenApiDocument());
  if (!check) {
    await writeFile(OPENAPI_FILE, emitted);
    process.stdout.write(`Wrote ${OPENAPI_FILE}\n`);
    return;
  }
  const committed = await readFile(OPENAPI_FILE, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') {
      return undefined;
    }
    throw error;
  });
  if (committed === emitted) {
    return;
  }
  const found = committed === undefined ? ['the file is missing'] : whatDiffers(committed, emitted);
  const named = found.length === 0 ? ['its formatting'] : found.slice(0, NAMED_DIFFERENCES);
  if (found.length > NAMED_DIFFERENCES) {
    named.push(`and ${found.length - NAMED_DIFFERENCES} more`);
  }
  process.stderr.write(
    `${OPENAPI_FILE} is not the document the service emits:\n${named.map((line) => `  ${line}\n`).join('')}` +
      `Run \`npm run openapi\` (it also regenerates the client's types) and commit the result.\n`,
  );
  process.exitCode = 1;
}

/** Where two documents differ, down to an operation (`paths./plants.post`) or a schema. */
function differences(committed: unknown, emitted: unknown, at = '', depth = 0): string[] {
  if (isDeepStrictEqual(committed, emitted)) {
    return [];
  }
  if (committed === undefined) {
    return [`${at}: not in ${OPENAPI_FILE}`];
  }
  if (emitted === undefined) {
    return [`${at}: only in ${OPENAPI_FILE}`];
  }
  if (depth === 3 || !isRecord(committed) || !isRecord(emitted)) {
    return [`${at || 'the document'}: differs`];
  }
  const keys = new Set([...Object.keys(committed), ...Object.keys(emitted)]);
  return [...keys].flatMap((key) =>
    differences(committed[key], emitted[key], at ? `${at}.${key}` : key, depth + 1),
  );
}

/** What differs between the committed document and the emitted one, in their YAML. */
function whatDiffers(committed: string, emitted: string): string[] {
  try {
    return differences(load(committed), load(emitted));
  } catch (error) {
    // A merge conflict left in the file, say.
    if (error instanceof YAMLException) {
      return [`it is not YAML: ${error.message}`];
    }
    throw error;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

await writeOpenApi(process.argv.includes('--check'));
