import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { TEST_TOKEN } from './support/environment.js';
import { startTestApp, type TestApp } from './support/app.js';
import { truncateAll } from './support/database.js';
import { CONSUMER_TSC_OPTIONS } from './support/typescript.js';

const run = promisify(execFile);

/** Beyond 2^53: a number would hold it as 9007199254740992. */
const ID = '9007199254740993';

/**
 * A consumer's script, in TypeScript, whichever way it loads the package:
 * it creates a plant, reads it back by a call of the document, and reports
 * what it got. `@ts-expect-error` lines fail the type check if the package's
 * types were not the document's (`any` accepts anything).
 */
function consumer(load: string, report: (main: string) => string): string {
  return `${load}

async function main() {
  const client = createPlantStoreClient({
    baseUrl: process.env.PLANT_STORE_URL!,
    token: process.env.PLANT_STORE_TOKEN!,
  });
  await client.addPlant({ id: ${ID}n, name: 'Fern' });
  const { data } = await client.GET('/plants/{id}', { params: { path: { id: ${ID}n } } });
  const id: bigint = data.id;
  const missing: unknown = await client.getPlant(${ID}n + 1n).catch((error: unknown) => error);
  return {
    loaded: Object.prototype.toString.call(plantStore),
    id: typeof id === 'bigint' ? String(id) : typeof id,
    missing: missing instanceof PlantStoreError ? missing.status : String(missing),
  };
}

// Never called: only compiled.
function typedByTheDocument(client: PlantStoreClient) {
  // @ts-expect-error the document has no such path
  void client.GET('/no-such-path');
  // @ts-expect-error an id is a bigint
  void client.GET('/plants/{id}', { params: { path: { id: 'ten' } } });
}
void typedByTheDocument;

${report('main()')}
`;
}

describe('the built @plant-store/client, as another project installs it', () => {
  let testApp: TestApp;
  let project: string;

  const env = () => ({ ...process.env, PLANT_STORE_URL: testApp.url, PLANT_STORE_TOKEN: TEST_TOKEN });

  beforeAll(async () => {
    await run('npm', ['run', 'build', '--workspace', '@plant-store/client']);
    testApp = await startTestApp();
    // A project of its own, the package installed as a link, as `npm install <folder>` does.
    project = await mkdtemp(join(tmpdir(), 'plant-store-client-'));
    await mkdir(join(project, 'node_modules/@plant-store'), { recursive: true });
    await symlink(resolve('clients/typescript'), join(project, 'node_modules/@plant-store/client'), 'dir');
    await writeFile(
      join(project, 'consumer.cts'),
      consumer(
        `const plantStore = require('@plant-store/client') as typeof import('@plant-store/client');
const { createPlantStoreClient, PlantStoreError } = plantStore;
type PlantStoreClient = import('@plant-store/client').PlantStoreClient;
const resolved = require.resolve('@plant-store/client');`,
        (main) => `${main}.then((result) => process.stdout.write(JSON.stringify({ ...result, resolved })));`,
      ),
    );
    await writeFile(
      join(project, 'consumer.mts'),
      consumer(
        `import * as plantStore from '@plant-store/client';
import { createPlantStoreClient, PlantStoreError, type PlantStoreClient } from '@plant-store/client';
const resolved = import.meta.resolve('@plant-store/client');`,
        (main) => `process.stdout.write(JSON.stringify({ ...(await ${main}), resolved }));`,
      ),
    );
  }, 120_000);

  afterAll(async () => {
    await testApp?.close();
    if (project) {
      await rm(project, { recursive: true, force: true });
    }
  });

  beforeEach(async () => {
    await truncateAll(testApp.db);
  });

  it('gives require() the CommonJS build, whole: calls, int64s, errors', async () => {
    const { stdout } = await run(process.execPath, ['consumer.cts'], { cwd: project, env: env() });

    expect(JSON.parse(stdout)).toStrictEqual({
      resolved: join(resolve('clients/typescript'), 'dist/cjs/index.js'),
      // A CommonJS module's exports, not an ES module's namespace (which Node.js may also require()).
      loaded: '[object Object]',
      id: ID,
      missing: 404,
    });
  });

  it('gives import the ES module build, whole: calls, int64s, errors', async () => {
    const { stdout } = await run(process.execPath, ['consumer.mts'], { cwd: project, env: env() });

    expect(JSON.parse(stdout)).toStrictEqual({
      resolved: `file://${join(resolve('clients/typescript'), 'dist/esm/index.js')}`,
      loaded: '[object Module]',
      id: ID,
      missing: 404,
    });
  });

  it('has types for require() and for import, the document’s', async () => {
    const tsc = createRequire(resolve('package.json')).resolve('typescript/bin/tsc');

    await expect(
      run(
        process.execPath,
        [
          tsc,
          ...CONSUMER_TSC_OPTIONS,
          '--typeRoots',
          resolve('node_modules/@types'),
          'consumer.cts',
          'consumer.mts',
        ],
        { cwd: project },
      ),
    ).resolves.toMatchObject({ stdout: '' });
  });

  it('is built with the service’s TypeScript, as is its generator', () => {
    const service = createRequire(resolve('package.json')).resolve('typescript');
    const client = createRequire(resolve('clients/typescript/package.json'));

    expect(client.resolve('typescript')).toBe(service);
    expect(createRequire(client.resolve('openapi-typescript')).resolve('typescript')).toBe(service);
  });
});
