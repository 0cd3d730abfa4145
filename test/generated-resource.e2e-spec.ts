import { execFile } from 'node:child_process';
import { access, copyFile, mkdir, mkdtemp, readFile, rm, symlink, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { TEST_TOKEN } from './support/environment.js';
import { platformErrorGaps, PLATFORM_ERROR_STATUSES } from './support/platform-errors.js';
import { type ServiceProcess, startService } from './support/service-process.js';

type Document = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed OpenAPI document

const run = promisify(execFile);

/**
 * Names for the generated resource, the first one the repository does not
 * have being used: a developer who follows the documentation generates
 * `gizmos`, and the tests must still pass on their work tree.
 */
const NAMES = ['gizmos', 'widgets', 'doohickeys', 'thingamajigs'];

/** Copying, generating and building take a while on a busy machine; each step says what failed. */
const PREPARATION_TIMEOUT_MS = 240_000;

/** Runs a command in `cwd`, failing with its whole output. */
async function runIn(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  try {
    return await run(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, {
      cause: error,
    });
  }
}

/**
 * The repository as a fresh clone has it (what git tracks, and what it would
 * add), with this one's `node_modules` linked in: `npm ci` is not what is
 * being tested.
 */
async function cloneInto(copy: string): Promise<void> {
  const { stdout } = await runIn(process.cwd(), 'git', [
    'ls-files',
    '-z',
    '--cached',
    '--others',
    '--exclude-standard',
  ]);
  for (const file of stdout.split('\0').filter(Boolean)) {
    await mkdir(dirname(join(copy, file)), { recursive: true });
    // A file deleted but not yet staged is not part of the copy.
    await copyFile(file, join(copy, file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') {
        throw error;
      }
    });
  }
  await symlink(resolve('node_modules'), join(copy, 'node_modules'), 'dir');
}

/** The generated resource: its name (the route and the scopes' resource), its singular and its classes' prefix. */
async function freeName(copy: string): Promise<{ name: string; singular: string; className: string }> {
  for (const name of NAMES) {
    const taken = await access(join(copy, 'src', name)).then(
      () => true,
      () => false,
    );
    if (!taken) {
      return { name, singular: name.slice(0, -1), className: name[0].toUpperCase() + name.slice(1) };
    }
  }
  throw new Error(`src/ already has a folder for each of ${NAMES.join(', ')}`);
}

/**
 * What `nest g resource` writes, with no edit: it builds, its specs pass
 * under the project's Jest, and the service it joins guards, validates and
 * documents its routes. The generator runs on a copy of the repository, so
 * this one is left as it is.
 */
describe('a resource written by `nest g resource <name> --type rest --crud`, unedited', () => {
  let copy: string;
  let resource: { name: string; singular: string; className: string };
  let service: ServiceProcess | undefined;
  let document: Document;

  const post = (body: string, headers: Record<string, string> = { Authorization: `Bearer ${TEST_TOKEN}` }) =>
    fetch(`${service!.url}/${resource.name}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
    });

  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'plant-store-generated-'));
    await cloneInto(copy);
    resource = await freeName(copy);
    await runIn(copy, process.execPath, [
      join(copy, 'node_modules/@nestjs/cli/bin/nest.js'),
      'generate',
      'resource',
      resource.name,
      '--type',
      'rest',
      '--crud',
    ]);
    await runIn(copy, 'npm', ['run', 'build:service']);
    service = await startService(
      { NODE_ENV: 'production', AUTH_TOKENS: TEST_TOKEN, DATABASE_URL: process.env.DATABASE_URL },
      { cwd: copy, main: join(copy, 'dist/main.js') },
    );
    document = (await (await fetch(`${service.url}/openapi.json`)).json()) as Document;
  }, PREPARATION_TIMEOUT_MS);

  afterAll(async () => {
    await service?.stop();
    if (copy) {
      await unlink(join(copy, 'node_modules')).catch(() => undefined);
      await rm(copy, { recursive: true, force: true });
    }
  });

  it('is registered in the application module by the generator, and built', async () => {
    const { name, className } = resource;

    expect(await readFile(join(copy, 'src/app.module.ts'), 'utf8')).toContain(
      `import { ${className}Module } from './${name}/${name}.module.js';`,
    );
    await expect(readFile(join(copy, `dist/${name}/${name}.controller.js`), 'utf8')).resolves.toContain(
      `${className}Controller`,
    );
  });

  it("passes its own specs under the project's Jest (ES modules, ts-jest)", async () => {
    const { stdout } = await runIn(
      copy,
      process.execPath,
      [
        join(copy, 'node_modules/jest/bin/jest.js'),
        `src/${resource.name}/`,
        '--selectProjects',
        'unit',
        '--ci',
        '--json',
      ],
      { ...process.env, NODE_OPTIONS: '--experimental-vm-modules' },
    );
    const results = JSON.parse(stdout) as {
      success: boolean;
      numPassedTests: number;
      testResults: Array<{ name: string; status: string }>;
    };

    expect(results.success).toBe(true);
    expect(
      results.testResults
        .map(({ name, status }) => ({ spec: name.slice(copy.length + 1), status }))
        .sort((a, b) => a.spec.localeCompare(b.spec)),
    ).toStrictEqual([
      { spec: `src/${resource.name}/${resource.name}.controller.spec.ts`, status: 'passed' },
      { spec: `src/${resource.name}/${resource.name}.service.spec.ts`, status: 'passed' },
    ]);
    expect(results.numPassedTests).toBe(2);
  }, 120_000);

  it('creates with a bearer token, and refuses without one', async () => {
    const created = await post('{}');
    expect(created.status).toBe(201);
    expect(await created.text()).toBe(`This action adds a new ${resource.singular}`);

    const refused = await post('{}', {});
    expect(refused.status).toBe(401);
    expect(await refused.json()).toStrictEqual({
      error: 401,
      message: 'A bearer token is required: send Authorization: Bearer <token>',
    });
  });

  // The generator's Create…Dto has no validation rule, so declares no property: every one is refused,
  // as Nest's `whitelist` with `forbidNonWhitelisted` would.
  it('refuses a property its DTO does not declare', async () => {
    const refused = await post('{"notAField": 1}');

    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 400, message: expect.stringContaining('notAField') });
  });

  it("documents the platform's failures on its operations, which declare none", () => {
    const { name } = resource;
    const responses = document.paths[`/${name}`].post.responses as Document;

    for (const status of PLATFORM_ERROR_STATUSES) {
      expect(responses[status].content['application/json'].schema).toStrictEqual({
        $ref: '#/components/schemas/Error',
      });
    }
    expect(responses['403'].content['application/json'].example.message).toBe(
      `The bearer token lacks the ${name}:write scope`,
    );
    expect(platformErrorGaps(document, new Map([[`GET /${name}/{id}`, `${name}:read`]]))).toStrictEqual([]);
  });
});
