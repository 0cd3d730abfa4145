/**
 * Generates, from the service's committed openapi.yaml:
 * - src/generated/openapi.ts, the types, with openapi-typescript (int64s typed
 *   as bigints);
 * - src/generated/int64.ts, where each JSON answer holds int64s, so that the
 *   client reads exactly those as bigints, whatever the operation;
 * - src/generated/query.ts, the query parameters written as one
 *   comma-separated list (`sort=name,-id`), which openapi-fetch would repeat;
 * - examples/hey-api/generated/, the client @hey-api/openapi-ts generates
 *   (its fetch client, int64s typed and converted as bigints), which
 *   docs/client.md shows keeping ids exact. It is not committed (.gitignore):
 *   `--example` writes it alone, as test/client-hey-api.e2e-spec.ts does
 *   before it type-checks and runs the example.
 * `--check` writes nothing and fails when a committed file is not what
 * generation gives, so that a change to the interface cannot go unnoticed by
 * the client.
 *
 * Usage (from the repository's root): npm run generate --workspace @plant-store/client [-- --check | --example]
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createClient as heyApi } from '@hey-api/openapi-ts';
import { load } from 'js-yaml';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const DOCUMENT = new URL('../../../openapi.yaml', import.meta.url);
const TYPES = new URL('../src/generated/openapi.ts', import.meta.url);
const INT64S = new URL('../src/generated/int64.ts', import.meta.url);
const QUERY = new URL('../src/generated/query.ts', import.meta.url);
const HEY_API = fileURLToPath(new URL('../examples/hey-api/generated', import.meta.url));
const COMMAND = 'npm run generate --workspace @plant-store/client';

const header = (tool) => `/**
 * Generated from openapi.yaml by ${tool}: do not edit. Regenerate it with
 * \`${COMMAND}\` (or \`npm run openapi\`, which first rewrites openapi.yaml).
 */

`;

const BIGINT = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);

/** The generated types, as the file holds them. */
async function generateTypes() {
  const ast = await openapiTS(DOCUMENT, {
    // Ids are int64: a double cannot hold every one of them, so the client reads and types them as bigints.
    transform: (schema) => (isInt64(schema) ? BIGINT : undefined),
  });
  return header('openapi-typescript') + astToString(ast);
}

function isInt64(schema) {
  return schema.format === 'int64';
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const SCHEMA_REF = '#/components/schemas/';

/**
 * Where the document's JSON bodies hold int64s, as the `Int64Shape`s of
 * src/json.ts: `'int64'`, `{ items }`, `{ properties, additionalProperties }`,
 * `{ anyOf }` and `{ ref }` (a schema of `components.schemas`). What holds no
 * int64 is left out.
 */
function int64Shapes(document) {
  const schemas = document.components?.schemas ?? {};
  /** The schemas found to hold an int64 so far: a schema referring to one holds one too. */
  let named = {};

  const shapeOf = (schema) => {
    if (typeof schema !== 'object' || schema === null) {
      return undefined;
    }
    if (typeof schema.$ref === 'string') {
      if (schema.$ref.startsWith(SCHEMA_REF)) {
        const name = decodeURIComponent(schema.$ref.slice(SCHEMA_REF.length));
        return name in named ? { ref: name } : undefined;
      }
      return shapeOf(resolve(document, schema.$ref));
    }
    const alternatives = [];
    if (isInt64(schema)) {
      alternatives.push('int64');
    }
    const items = shapeOf(schema.items);
    if (items !== undefined) {
      alternatives.push({ items });
    }
    const properties = Object.fromEntries(
      Object.entries(schema.properties ?? {})
        .map(([name, property]) => [name, shapeOf(property)])
        .filter(([, shape]) => shape !== undefined),
    );
    const additionalProperties = shapeOf(schema.additionalProperties);
    if (Object.keys(properties).length > 0 || additionalProperties !== undefined) {
      alternatives.push(
        additionalProperties === undefined ? { properties } : { properties, additionalProperties },
      );
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      alternatives.push(...(schema[keyword] ?? []).map(shapeOf).filter((shape) => shape !== undefined));
    }
    return alternatives.length <= 1 ? alternatives[0] : { anyOf: alternatives };
  };

  // A schema may hold an int64 only through others (and refer to itself): settle them all together.
  for (let changed = true; changed;) {
    const next = {};
    for (const [name, schema] of Object.entries(schemas)) {
      const shape = shapeOf(schema);
      if (shape !== undefined) {
        next[name] = shape;
      }
    }
    changed = JSON.stringify(next) !== JSON.stringify(named);
    named = next;
  }

  /** The shape of a request or response's JSON bodies, whichever JSON media types it has. */
  const bodyShape = (body) => {
    const content = resolveRef(document, body)?.content ?? {};
    const shapes = Object.entries(content)
      .filter(([mediaType]) => isJson(mediaType))
      .map(([, media]) => shapeOf(media.schema))
      .filter((shape) => shape !== undefined);
    return shapes.length <= 1 ? shapes[0] : { anyOf: shapes };
  };

  const responses = {};
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const statuses = {};
      for (const [status, response] of Object.entries(pathItem[method]?.responses ?? {})) {
        const shape = bodyShape(response);
        if (shape !== undefined) {
          statuses[status] = shape;
        }
      }
      if (Object.keys(statuses).length > 0) {
        responses[`${method.toUpperCase()} ${path}`] = statuses;
      }
    }
  }

  const webhooks = {};
  for (const [name, pathItem] of Object.entries(document.webhooks ?? {})) {
    for (const method of METHODS) {
      const shape = pathItem[method] && bodyShape(pathItem[method].requestBody);
      if (shape !== undefined) {
        webhooks[name] = shape;
      }
    }
  }

  return { schemas: named, responses, webhooks };
}

function isJson(mediaType) {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(mediaType);
}

function resolveRef(document, value) {
  return typeof value?.$ref === 'string' ? resolveRef(document, resolve(document, value.$ref)) : value;
}

/** What a local reference (`#/components/…`) points at. */
function resolve(document, ref) {
  if (!ref.startsWith('#/')) {
    throw new Error(`Only references within the document are supported, not ${ref}`);
  }
  return ref
    .slice(2)
    .split('/')
    .map((token) => decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((node, token) => node?.[token], document);
}

/** The generated int64 shapes, as the file holds them. */
async function generateInt64s() {
  const { schemas, responses, webhooks } = int64Shapes(load(await readFile(DOCUMENT, 'utf8')));
  const constant = (value) => JSON.stringify(value, null, 4);
  return `${header('scripts/generate-types.js')}import type { Int64Shape } from '../json.js';

/** Where each schema of \`components.schemas\` holds int64s (those that hold none are left out). */
export const schemas: Readonly<Record<string, Int64Shape>> = ${constant(schemas)};

/** Where the JSON answers hold int64s, by operation (\`GET /plants/{id}\`) and status. */
export const responses: Readonly<Record<string, Readonly<Record<string, Int64Shape>>>> = ${constant(responses)};

/** Where each webhook's JSON body holds int64s. */
export const webhooks: Readonly<Record<string, Int64Shape>> = ${constant(webhooks)};
`;
}

/** Each operation's query parameters of `style: form` and `explode: false`: an array sent as `a,b`. */
async function generateQuery() {
  const document = load(await readFile(DOCUMENT, 'utf8'));
  const commaSeparated = {};
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const names = [...(pathItem.parameters ?? []), ...(pathItem[method]?.parameters ?? [])]
        .map((parameter) => resolveRef(document, parameter))
        .filter((parameter) => parameter.in === 'query' && parameter.explode === false)
        .map((parameter) => parameter.name);
      if (pathItem[method] && names.length > 0) {
        commaSeparated[`${method.toUpperCase()} ${path}`] = names;
      }
    }
  }
  return `${header('scripts/generate-types.js')}/** The query parameters each operation takes as one comma-separated list (\`sort=name,-id\`). */
export const commaSeparated: Readonly<Record<string, readonly string[]>> = ${JSON.stringify(commaSeparated, null, 4)};
`;
}

/** The client @hey-api/openapi-ts generates, as its files (by path below its folder) hold it. */
async function generateHeyApi() {
  const scratch = await mkdtemp(join(tmpdir(), 'plant-store-hey-api-'));
  try {
    await heyApi({
      input: fileURLToPath(DOCUMENT),
      // Imports name the .ts files, so that Node.js runs the example as it is (its types stripped).
      output: { path: scratch, module: { extension: '.ts' } },
      plugins: [
        '@hey-api/client-fetch',
        // int64s typed as bigints, and converted to them after parsing (exactly, with examples/hey-api's hook).
        { name: '@hey-api/transformers', bigInt: true },
        { name: '@hey-api/sdk', transformer: true },
      ],
      logs: { level: 'silent', file: false },
    });
    return await readTree(scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Every file below `folder`, by its path there, and its text. */
async function readTree(folder) {
  const files = new Map();
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files.set(path.slice(folder.length + 1), await readFile(path, 'utf8'));
    }
  }
  return files;
}

const check = process.argv.includes('--check');
// The example's client alone: it is not committed, and wants no change to the committed files.
const files = process.argv.includes('--example')
  ? []
  : [
      [fileURLToPath(TYPES), await generateTypes()],
      [fileURLToPath(INT64S), await generateInt64s()],
      [fileURLToPath(QUERY), await generateQuery()],
    ];
const heyApiFiles = check ? new Map() : await generateHeyApi();

if (check) {
  const stale = [];
  for (const [file, generated] of files) {
    if ((await readFile(file, 'utf8').catch(() => '')) !== generated) {
      stale.push(file);
    }
  }
  for (const file of stale) {
    process.stderr.write(`${file} is not in step with openapi.yaml: run \`${COMMAND}\`\n`);
  }
  process.exitCode = stale.length > 0 ? 1 : 0;
} else {
  for (const [file, generated] of files) {
    await writeFile(file, generated);
  }
  await rm(HEY_API, { recursive: true, force: true });
  for (const [path, text] of heyApiFiles) {
    await mkdir(dirname(join(HEY_API, path)), { recursive: true });
    await writeFile(join(HEY_API, path), text);
  }
}
