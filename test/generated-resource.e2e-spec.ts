import { execFile } from 'node:child_process';
import { access, copyFile, mkdir, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

import pg from 'pg';

import { truncateAll } from './support/database.js';
import { TEST_TOKEN } from './support/environment.js';
import { platformErrorGaps, PLATFORM_ERROR_STATUSES } from './support/platform-errors.js';
import { killTree } from './support/process-tree.js';
import { type ServiceProcess, startService } from './support/service-process.js';
import { CONSUMER_TSC_OPTIONS } from './support/typescript.js';

type Document = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed OpenAPI document

const run = promisify(execFile);

/**
 * Names for the generated resource, the first one the repository does not
 * have being used: names a team picks, which the project's own test fixtures
 * must not collide with; and the tests must still pass on a work tree where
 * one of them is taken already.
 */
const NAMES = ['gardens', 'orders', 'users', 'widgets', 'gizmos'];

/** Copying, generating and building take a while on a busy machine; each step says what failed. */
const PREPARATION_TIMEOUT_MS = 360_000;

/**
 * Runs a command in `cwd`, failing with its whole output. One still running
 * after `timeoutMs` (less than its test's own limit) is killed, with every
 * process it started (npm's script and its tools), so that none outlives the
 * test.
 */
async function runIn(
  cwd: string,
  command: string,
  args: string[],
  { env = process.env, timeoutMs = 100_000 }: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
) {
  const running = run(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  let killed = false;
  const deadline = setTimeout(() => {
    killed = true;
    void killTree(running.child.pid!);
  }, timeoutMs);
  try {
    return await running;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    const outcome = killed ? `was killed after ${timeoutMs} ms` : 'failed';
    throw new Error(`${command} ${args.join(' ')} ${outcome} in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, {
      cause: error,
    });
  } finally {
    clearTimeout(deadline);
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
  for (const modules of ['node_modules', 'clients/typescript/node_modules']) {
    const installed = await access(modules).then(
      () => true,
      () => false,
    );
    if (installed) {
      await symlink(resolve(modules), join(copy, modules), 'dir');
    }
  }
}

/**
 * A database of the copy's own, beside the one the tests were given (its
 * name says "test" too, as the e2e set-up requires), for `use`: the
 * generated suite empties every table it finds, which must not be this
 * run's, and leaves its last test's rows, which must not be the service's.
 */
async function createDatabaseBeside(
  url: string,
  use: 'service' | 'specs',
): Promise<{ url: string; drop: () => Promise<void> }> {
  const given = new URL(url);
  const name = `${given.pathname.slice(1)}_generated_${use}_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    url: own.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Empties the copy's tables: an e2e suite empties them before each test, so its last test's rows remain. */
async function emptyTables(url: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url });
  try {
    await truncateAll(pool);
  } finally {
    await pool.end();
  }
}

/** The generator's words: each file it wrote (`CREATE <path> (<size>)`), or would write with --dry-run. */
function createdFiles(output: string): string[] {
  return [...output.matchAll(/^CREATE (\S+)/gm)].map((match) => match[1]).sort();
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
 * A script that calls the generated resource `name` with the client built in
 * the copy, through the calls its document gives it, and prints what it got
 * (bigints as `<digits>n`).
 */
function clientCall(name: string): string {
  return `import { createPlantStoreClient } from './clients/typescript/dist/esm/index.js';

const client = createPlantStoreClient({
  baseUrl: process.env.PLANT_STORE_URL!,
  token: process.env.PLANT_STORE_TOKEN!,
});

const { data: first } = await client.POST('/${name}', { body: { name: 'g1' } });
const { data: second } = await client.POST('/${name}', { body: { name: 'g2' } });
const id: bigint = first.id;
const read = await client.GET('/${name}/{id}', { params: { path: { id } } });
const { data: patched } = await client.PATCH('/${name}/{id}', {
  params: { path: { id }, header: { 'If-Match': read.response.headers.get('ETag')! } },
  body: { name: 'g1 (renamed)' },
});
const pages = [];
for await (const page of client.pages('/${name}', { params: { query: { limit: 1 } } })) {
  pages.push(page);
}
const sorted = [];
for await (const page of client.pages('/${name}', { params: { query: { sort: ['-name'], 'name[prefix]': 'g', limit: 1 } } })) {
  sorted.push(page);
}
const { response: counted } = await client.GET('/${name}', { params: { header: { Prefer: 'count=exact' } } });
await client.DELETE('/${name}/{id}', { params: { path: { id } } });
const gone = await client.GET('/${name}/{id}', { params: { path: { id } } }).then(
  () => 'still there',
  (error: { status?: number }) => error.status,
);

const written = JSON.stringify({ first, second, read: read.data, patched, pages, sorted, range: counted.headers.get('Content-Range'), gone }, (_key, value: unknown) =>
  typeof value === 'bigint' ? \`\${value}n\` : value,
);
process.stdout.write(written);
`;
}

/**
 * What `nest g resource` writes, with no edit: a resource of the platform
 * that builds, passes lint's checks and its own specs (its e2e suite on a
 * database of its own), and serves create, list, read, update and delete on
 * PostgreSQL. The generator runs on a copy of the repository, so this one is
 * left as it is. (The copy's `node_modules` is this one's, linked: the
 * collection it runs is this repository's `schematics/`.)
 */
describe('a resource written by `nest g resource <name> --type rest --crud`, unedited', () => {
  let copy: string;
  let resource: { name: string; singular: string; className: string };
  /** A second one, by `nest g soft-delete-resource`: its deletes can be undone. */
  let softDeleting: { name: string; singular: string; className: string };
  let written: string[];
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let service: ServiceProcess | undefined;
  let document: Document;

  const call = (
    method: string,
    path: string,
    {
      body,
      headers = {},
      token = TEST_TOKEN,
    }: { body?: string; headers?: Record<string, string>; token?: string } = {},
  ) =>
    fetch(`${service!.url}${path}`, {
      method,
      headers: {
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body,
    });

  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), 'plant-store-generated-'));
    await cloneInto(copy);
    resource = await freeName(copy);
    const { stdout } = await runIn(copy, process.execPath, [
      join(copy, 'node_modules/@nestjs/cli/bin/nest.js'),
      'generate',
      'resource',
      resource.name,
      '--type',
      'rest',
      '--crud',
    ]);
    written = createdFiles(stdout);
    softDeleting = await freeName(copy);
    await runIn(copy, process.execPath, [
      join(copy, 'node_modules/@nestjs/cli/bin/nest.js'),
      'generate',
      'soft-delete-resource',
      softDeleting.name,
    ]);
    await runIn(copy, 'npm', ['run', 'build:service'], { timeoutMs: 120_000 });
    database = await createDatabaseBeside(process.env.DATABASE_URL!, 'service');
    service = await startService(
      { NODE_ENV: 'production', AUTH_TOKENS: TEST_TOKEN, DATABASE_URL: database.url },
      { cwd: copy, main: join(copy, 'dist/main.js') },
    );
    document = (await (await fetch(`${service.url}/openapi.json`)).json()) as Document;
  }, PREPARATION_TIMEOUT_MS);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    if (copy) {
      for (const modules of ['node_modules', 'clients/typescript/node_modules']) {
        await unlink(join(copy, modules)).catch(() => undefined);
      }
      await rm(copy, { recursive: true, force: true });
    }
  });

  it('writes the resource’s folder, its migration and its e2e suite', () => {
    const { name, singular } = resource;

    // Migrations are named by the time they were written.
    expect(written.map((file) => file.replace(/\/\d{13}-/, '/<timestamp>-')).sort()).toStrictEqual(
      [
        `src/${name}/${name}.controller.spec.ts`,
        `src/${name}/${name}.controller.ts`,
        `src/${name}/${name}.errors.ts`,
        `src/${name}/${name}.module.ts`,
        `src/${name}/${name}.service.spec.ts`,
        `src/${name}/${name}.service.ts`,
        `src/${name}/${singular}.entity.ts`,
        `src/${name}/dto/${singular}-fields.ts`,
        `src/${name}/dto/${singular}-patch.dto.ts`,
        `src/${name}/dto/${singular}.dto.ts`,
        `src/${name}/dto/list-${name}.query.ts`,
        `src/${name}/dto/new-${singular}.dto.ts`,
        `src/${name}/migrations/<timestamp>-Create${resource.className}.ts`,
        `test/${name}.e2e-spec.ts`,
      ].sort(),
    );
  });

  it('is registered in the application module by the generator, after the platform’s resources, and built', async () => {
    const { name, className } = resource;
    const appModule = await readFile(join(copy, 'src/app.module.ts'), 'utf8');

    expect(appModule).toContain(`import { ${className}Module } from './${name}/${name}.module.js';`);
    // Last among the imports, after the platform's resources (and any generated before it).
    expect(appModule).toMatch(
      new RegExp(`PlantsModule,[^\\]]*\\b${className}Module,\\s+${softDeleting.className}Module,\\s+\\]`),
    );
    await expect(readFile(join(copy, `dist/${name}/${name}.controller.js`), 'utf8')).resolves.toContain(
      `${className}Controller`,
    );
  });

  it('passes `npm run lint`’s checks on what it wrote: ESLint, Prettier, openapi.yaml regenerated with it, and the OpenAPI linters', async () => {
    const files = written.filter((file) => file.endsWith('.ts'));
    await runIn(copy, process.execPath, [join(copy, 'node_modules/eslint/bin/eslint.js'), ...files]);
    await runIn(copy, process.execPath, [
      join(copy, 'node_modules/prettier/bin/prettier.cjs'),
      '--check',
      ...files,
      'src/app.module.ts',
      'openapi.yaml',
    ]);
    await runIn(copy, process.execPath, ['dist/core/openapi/write-openapi.js', '--check']);
    // Redocly's recommended rules and Spectral's with OWASP's: an error fails, as in `npm run lint`.
    await runIn(copy, 'npm', ['run', 'lint:openapi'], { timeoutMs: 110_000 });
  }, 150_000);

  it("passes its own specs under the project's Jest, as the soft-deleting one does: unit, and e2e on PostgreSQL", async () => {
    const { name } = resource;
    const other = softDeleting.name;
    const specsDatabase = await createDatabaseBeside(process.env.DATABASE_URL!, 'specs');
    const { stdout } = await runIn(
      copy,
      process.execPath,
      [
        join(copy, 'node_modules/jest/bin/jest.js'),
        '--selectProjects',
        'unit',
        'e2e',
        '--runInBand',
        '--ci',
        '--json',
        '--testPathPatterns',
        `src/${name}/`,
        `test/${name}\\.e2e-spec\\.ts$`,
        `src/${other}/`,
        `test/${other}\\.e2e-spec\\.ts$`,
      ],
      {
        env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules', DATABASE_URL: specsDatabase.url },
        timeoutMs: 230_000,
      },
    ).finally(() => specsDatabase.drop());
    const results = JSON.parse(stdout) as {
      success: boolean;
      numPassedTests: number;
      testResults: Array<{ name: string; status: string }>;
    };

    expect(results.success).toBe(true);
    expect(
      results.testResults
        .map(({ name: spec, status }) => ({ spec: spec.slice(copy.length + 1), status }))
        .sort((a, b) => a.spec.localeCompare(b.spec)),
    ).toStrictEqual(
      [
        { spec: `src/${name}/${name}.controller.spec.ts`, status: 'passed' },
        { spec: `src/${name}/${name}.service.spec.ts`, status: 'passed' },
        { spec: `test/${name}.e2e-spec.ts`, status: 'passed' },
        { spec: `src/${other}/${other}.controller.spec.ts`, status: 'passed' },
        { spec: `src/${other}/${other}.service.spec.ts`, status: 'passed' },
        { spec: `test/${other}.e2e-spec.ts`, status: 'passed' },
      ].sort((a, b) => a.spec.localeCompare(b.spec)),
    );
    expect(results.numPassedTests).toBeGreaterThan(20);
  }, 240_000);

  it('deletes softly when written by soft-delete-resource: hidden, listed with deleted=only, restored', async () => {
    const { name } = softDeleting;
    const created = await call('POST', `/${name}`, { body: '{"name":"s1"}' });
    const { id } = (await created.json()) as { id: number };

    expect((await call('DELETE', `/${name}/${id}`)).status).toBe(204);
    expect((await call('GET', `/${name}/${id}`)).status).toBe(404);
    expect(await (await call('GET', `/${name}?deleted=only`)).json()).toStrictEqual([{ id, name: 's1' }]);
    const restored = await call('POST', `/${name}/${id}/restore`, { headers: { 'If-Match': '"2"' } });
    expect(restored.status).toBe(200);
    expect(await restored.json()).toStrictEqual({ id, name: 's1' });
    expect(document.paths[`/${name}/{id}/restore`].post.operationId).toBe(
      `restore${softDeleting.className.slice(0, -1)}`,
    );
    expect(document.paths[`/${name}`].get.parameters).toContainEqual(
      expect.objectContaining({ name: 'deleted', in: 'query', schema: { type: 'string', enum: ['only'] } }),
    );
  });

  it('creates, lists, reads, updates with If-Match and deletes, on PostgreSQL', async () => {
    const { name } = resource;
    await emptyTables(database!.url);

    const created = await call('POST', `/${name}`, { body: '{"name":"g1"}' });
    expect(created.status).toBe(201);
    const gizmo = (await created.json()) as { id: number; name: string };
    expect(gizmo).toStrictEqual({ id: expect.any(Number), name: 'g1' });
    expect(created.headers.get('location')).toBe(`/${name}/${gizmo.id}`);

    const listed = await call('GET', `/${name}`);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toStrictEqual([gizmo]);

    const read = await call('GET', `/${name}/${gizmo.id}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toStrictEqual(gizmo);
    const etag = read.headers.get('etag')!;
    expect(etag).toBe('"1"');
    const notModified = await call('GET', `/${name}/${gizmo.id}`, { headers: { 'If-None-Match': etag } });
    expect(notModified.status).toBe(304);

    const patched = await call('PATCH', `/${name}/${gizmo.id}`, {
      body: '{"name":"g2"}',
      headers: { 'Content-Type': 'application/merge-patch+json', 'If-Match': etag },
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toStrictEqual({ id: gizmo.id, name: 'g2' });
    expect(patched.headers.get('etag')).toBe('"2"');

    const stale = await call('PATCH', `/${name}/${gizmo.id}`, {
      body: '{"name":"g3"}',
      headers: { 'Content-Type': 'application/merge-patch+json', 'If-Match': etag },
    });
    expect(stale.status).toBe(412);

    const deleted = await call('DELETE', `/${name}/${gizmo.id}`, { headers: { 'If-Match': '"2"' } });
    expect(deleted.status).toBe(204);
    const gone = await call('GET', `/${name}/${gizmo.id}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toStrictEqual({
      error: 404,
      message: `No ${resource.singular} has the id ${gizmo.id}`,
    });
  });

  it('is called through @plant-store/client, typed by the document, with no code of the client’s own', async () => {
    const { name } = resource;
    await emptyTables(database!.url);
    // The generator ran `npm run openapi`, which regenerated the client's types with the resource's operations.
    await runIn(copy, 'npm', ['run', 'build', '--workspace', '@plant-store/client'], { timeoutMs: 120_000 });
    const script = join(copy, 'client-call.mts');
    await writeFile(script, clientCall(name));

    // Type-checked first: a path, parameter or body the document lacks fails here.
    await runIn(copy, process.execPath, [
      join(copy, 'node_modules/typescript/bin/tsc'),
      ...CONSUMER_TSC_OPTIONS,
      script,
    ]);
    const { stdout } = await runIn(copy, process.execPath, [script], {
      env: { ...process.env, PLANT_STORE_URL: service!.url, PLANT_STORE_TOKEN: TEST_TOKEN },
    });

    const { first, second, read, patched, pages, sorted, range, gone } = JSON.parse(stdout) as Record<
      string,
      unknown
    >;
    // Ids are int64s: bigints, written here as `<digits>n`.
    expect(first).toStrictEqual({ id: expect.stringMatching(/^\d+n$/), name: 'g1' });
    const id = (first as { id: string }).id;
    expect(read).toStrictEqual(first);
    expect(patched).toStrictEqual({ id, name: 'g1 (renamed)' });
    expect(pages).toStrictEqual([[patched], [second]]);
    expect(sorted).toStrictEqual([[second], [patched]]);
    expect(range).toBe('0-1/2');
    expect(gone).toBe(404);
  });

  it('refuses a call without a bearer token', async () => {
    const refused = await call('POST', `/${resource.name}`, {
      body: '{"name":"g1"}',
      headers: { Authorization: '' },
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toStrictEqual({
      error: 401,
      message: 'A bearer token is required: send Authorization: Bearer <token>',
    });
  });

  it('refuses a property its DTO does not declare', async () => {
    const refused = await call('POST', `/${resource.name}`, { body: '{"name":"g1","notAField":1}' });

    expect(refused.status).toBe(400);
    expect(await refused.json()).toStrictEqual({ error: 400, message: expect.stringContaining('notAField') });
  });

  it('refuses a key naming an inherited member by name, in its body and its query string', async () => {
    const { name } = resource;
    const body = await call('POST', `/${name}`, { body: '{"name":"g1","toString":"x"}' });
    expect(body.status).toBe(400);
    expect(await body.json()).toStrictEqual({ error: 400, message: 'property toString is not allowed' });

    for (const key of ['__proto__', 'constructor', 'valueOf']) {
      const query = await call('GET', `/${name}?${key}=1`);
      expect(query.status).toBe(400);
      expect(await query.json()).toStrictEqual({
        error: 400,
        message: `query parameter ${key} is not allowed`,
      });
    }
  });

  it("documents its own failures and the platform's on its operations", () => {
    const { name } = resource;
    const responses = document.paths[`/${name}`].post.responses as Document;

    for (const status of PLATFORM_ERROR_STATUSES) {
      expect(responses[status].content['application/json'].schema).toStrictEqual({
        $ref: '#/components/schemas/Error',
      });
    }
    expect(responses['409'].content['application/json'].example.message).toBe(
      `The name Sprocket is already taken by another ${resource.singular}`,
    );
    expect(responses['403'].content['application/json'].example.message).toBe(
      `The bearer token lacks the ${name}:write scope`,
    );
    expect(platformErrorGaps(document, new Map([[`GET /${name}/{id}`, `${name}:read`]]))).toStrictEqual([]);
  });
});

describe("Nest's other generators, beside the project's resource", () => {
  it('still work: `nest g service <name> --dry-run` names the files it would write, and writes none', async () => {
    const { stdout } = await runIn(process.cwd(), process.execPath, [
      'node_modules/@nestjs/cli/bin/nest.js',
      'generate',
      'service',
      'x',
      '--dry-run',
    ]);

    expect(createdFiles(stdout)).toStrictEqual(['src/x/x.service.spec.ts', 'src/x/x.service.ts']);
    await expect(access('src/x')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
