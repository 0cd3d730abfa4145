import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { DEFAULT_SERVER } from '../src/core/openapi/openapi.document.js';
import { previewOpenApiDocument } from '../src/core/openapi/preview-document.js';
import { TEST_TOKEN } from './support/environment.js';
import { eventually } from './support/eventually.js';
import { isRunning } from './support/process-tree.js';
import { failedStart, startService } from './support/service-process.js';

const run = promisify(execFile);

/** Creates a plant through the running service; answers the status. */
async function create(url: string, token: string, body: object): Promise<number> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return response.status;
}

/** What every start loads: the chunks the entry imports, and theirs, followed through static imports only. */
async function alwaysLoadedChunks(): Promise<Map<string, string>> {
  const read = (file: string): Promise<string> => readFile(join('dist', file), 'latin1');
  const loaded = new Map<string, string>();
  const pending = [...(await read('main.js')).matchAll(/import\("\.\/([^"]+)"\)/g)].map((match) => match[1]);
  while (pending.length > 0) {
    const file = pending.pop()!;
    const code = await read(file);
    loaded.set(file, code);
    for (const [, imported] of code.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)) {
      const path = join(file, '..', imported);
      if (!loaded.has(path) && !pending.includes(path)) {
        pending.push(path);
      }
    }
  }
  return loaded;
}

describe('start-up and configuration (the compiled service)', () => {
  let workDir: string;

  beforeEach(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'plant-store-startup-'));
  });

  afterEach(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('generates a development token once, prints it, keeps it in .data/auth/dev-token and accepts it', async () => {
    // Development's own log format (LOG_FORMAT unset).
    const env = { NODE_ENV: 'development', DATABASE_URL: process.env.DATABASE_URL, LOG_FORMAT: undefined };
    const first = await startService(env, { cwd: workDir });
    let token: string;
    try {
      token = (await readFile(join(workDir, '.data/auth/dev-token'), 'utf8')).trim();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(first.output()).toContain(token);
      // Development's log format, pino-pretty's, loaded for it alone: one line a message, not JSON.
      expect(first.output()).toMatch(/INFO.*: .*Plant Store is listening on http:/);
      expect(first.output()).not.toContain('"level":');
      expect((await stat(join(workDir, '.data/auth/dev-token'))).mode & 0o777).toBe(0o600);
      expect((await stat(join(workDir, '.data/auth'))).mode & 0o777).toBe(0o700);
      // `.data` stays traversable: a root caller's embedded PostgreSQL runs as `postgres` beneath it.
      expect((await stat(join(workDir, '.data'))).mode & 0o777).toBe(0o755);
      await expect(create(first.url, token, { id: 910_001, name: 'Fern' })).resolves.toBe(200);
    } finally {
      await first.stop();
    }

    const second = await startService(env, { cwd: workDir });
    try {
      await expect(create(second.url, token, { id: 910_001, name: 'Fern' })).resolves.toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('refuses a kept development token that others may have read, without printing it', async () => {
    const env = { NODE_ENV: 'development', DATABASE_URL: process.env.DATABASE_URL };
    const first = await startService(env, { cwd: workDir });
    await first.stop();
    const token = (await readFile(join(workDir, '.data/auth/dev-token'), 'utf8')).trim();
    await chmod(join(workDir, '.data/auth/dev-token'), 0o644);

    const { code, output } = await failedStart(env, { cwd: workDir });

    expect(code).toBe(1);
    expect(output).toContain('.data/auth/dev-token may be read by others (mode 644)');
    expect(output).not.toContain(token);
  });

  it('serves the OpenAPI document the sources emit, and logs under class names: the bundle renames nothing', async () => {
    // The document is read off the classes' metadata, and a schema without a name of its own is named after
    // its class, which a bundler may rename. (Whether openapi.yaml is up to date is `npm run lint`'s to say.)
    const service = await startService(
      { NODE_ENV: 'production', AUTH_TOKENS: TEST_TOKEN, DATABASE_URL: process.env.DATABASE_URL },
      { cwd: workDir },
    );
    try {
      const served = await (await fetch(`${service.url}/openapi.json`)).json();
      const production = { ...DEFAULT_SERVER, environment: 'production' } as const;
      expect(served).toStrictEqual(JSON.parse(JSON.stringify(await previewOpenApiDocument(production))));
      // Nest's log contexts are its classes' names (a bundler's renaming showed as `_InstanceLoader`).
      // The service answers as soon as it listens; its start-up lines reach the output a block at a time.
      await eventually(() => service.output().includes('"context":"RoutesResolver"'));
      expect(service.output()).toContain('"context":"InstanceLoader"');
      expect(service.output()).toContain('"context":"RoutesResolver"');
    } finally {
      await service.stop();
    }
    // Lines are written a turn of the event loop at a time, asynchronously: the last ones too, at exit.
    const lines = service.output().split('\n');
    expect(lines.filter((line) => line.includes('"route":"/openapi.json"'))).toHaveLength(1);
    expect(lines.filter(Boolean).at(-1)).toContain('"msg":"Shut down cleanly"');
  });

  it('maps the bundle back to the TypeScript sources: a stack trace names the .ts file and line', async () => {
    // The entry turns source maps on before it loads any chunk.
    const entry = await readFile('dist/main.js', 'utf8');
    expect(entry.indexOf('setSourceMapsSupport(true)')).toBeGreaterThan(-1);
    expect(entry.indexOf('setSourceMapsSupport(true)')).toBeLessThan(entry.indexOf('import('));

    // An error made in the service's own code, thrown from the bundle as the entry loads it.
    const chunks = (await readdir('dist/bundle')).filter((file) => file.endsWith('.js'));
    const codes = await Promise.all(chunks.map((file) => readFile(join('dist/bundle', file), 'utf8')));
    const chunk = chunks.find((_, index) => /export\s*\{[^}]*\bappConfig\b/.test(codes[index]));
    expect(chunk).toBeDefined();
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '--eval',
        [
          "import { setSourceMapsSupport } from 'node:module';",
          'setSourceMapsSupport(true);',
          'const { appConfig } = await import(process.argv[1]);',
          'try { appConfig(); } catch (error) { console.log(error.stack); }',
        ].join('\n'),
        join(process.cwd(), 'dist/bundle', chunk!),
      ],
      { env: { PATH: process.env.PATH, PORT: 'eighty' } },
    );

    const source = await readFile('src/core/config/environment.ts', 'utf8');
    const line = source.split('\n').findIndex((text) => text.includes('throw InvalidConfigurationError')) + 1;
    expect(stdout).toContain('PORT must be an integer number');
    expect(stdout).toMatch(new RegExp(`src/core/config/environment\\.ts:${line}:\\d+`));
    expect(stdout).toMatch(/src\/core\/config\/app\.config\.ts:\d+:\d+/);
    // No frame of the service's own code is left pointing into the bundle.
    expect(stdout).not.toMatch(/at readEnvironment \([^)]*dist\/bundle/);
  });

  it('loads the Redis client and the development log format only when they are configured', async () => {
    const loaded = await alwaysLoadedChunks();
    const everyChunk = await readdir('dist/bundle');
    const modules = (code: string): string[] =>
      [...code.matchAll(/"node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map((m) => m[1]);

    const alwaysLoaded = new Set([...loaded.values()].flatMap(modules));
    const bundled = new Set(
      (await Promise.all(everyChunk.map((file) => readFile(join('dist/bundle', file), 'latin1')))).flatMap(
        modules,
      ),
    );
    expect(alwaysLoaded).toContain('pino');
    expect(alwaysLoaded).not.toContain('ioredis');
    expect(alwaysLoaded).not.toContain('pino-pretty');
    expect(bundled).toContain('ioredis');
    expect(bundled).toContain('pino-pretty');
  });

  it('imports node:http on its way to the first answer as no ES module, which would load Node’s fetch', async () => {
    const loaded = await alwaysLoadedChunks();

    expect(loaded.size).toBeGreaterThan(1);
    for (const [file, code] of loaded) {
      expect([file, /(?:from|import)\s*\(?\s*"node:https?"/.test(code)]).toStrictEqual([file, false]);
    }
  });

  it('refuses a port another instance serves, rather than share it, and leaves that one serving', async () => {
    const env = { NODE_ENV: 'production', AUTH_TOKENS: TEST_TOKEN, DATABASE_URL: process.env.DATABASE_URL };
    const first = await startService(env, { cwd: workDir });
    try {
      const port = new URL(first.url).port;
      const { code, output } = await failedStart({ ...env, PORT: port }, { cwd: workDir });

      expect(code).toBe(1);
      expect(output).toContain(
        `Plant Store failed to start: 127.0.0.1:${port} is taken by another process (another instance of the service?)`,
      );
      expect(output).not.toContain('    at ');
      // The refused start took nothing from the first: it still answers.
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${first.url}/health/live`, { headers: { Connection: 'close' } }).then(
            (response) => response.status,
          ),
        ),
      );
      expect(answers.every((status) => status === 200)).toBe(true);
    } finally {
      await first.stop();
    }
  });

  it('refuses to start in production without AUTH_TOKENS: it fails closed', async () => {
    const { code, output } = await failedStart(
      { NODE_ENV: 'production', DATABASE_URL: process.env.DATABASE_URL },
      { cwd: workDir },
    );

    expect(code).toBe(1);
    expect(output).toContain('NODE_ENV=production needs AUTH_TOKENS');
    await expect(stat(join(workDir, '.data'))).rejects.toThrow();
  });

  it('refuses to start in production without DATABASE_URL rather than use an embedded database', async () => {
    const { code, output } = await failedStart(
      { NODE_ENV: 'production', AUTH_TOKENS: TEST_TOKEN },
      { cwd: workDir },
    );

    expect(code).toBe(1);
    expect(output).toContain('NODE_ENV=production needs DATABASE_URL');
  });

  it('refuses to start in production with a plain http:// webhook receiver off this machine', async () => {
    const { code, output } = await failedStart({
      NODE_ENV: 'production',
      AUTH_TOKENS: TEST_TOKEN,
      DATABASE_URL: process.env.DATABASE_URL,
      WEBHOOK_URLS: 'http://hooks.example.com/plants',
      WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    });

    expect(code).toBe(1);
    expect(output).toContain('WEBHOOK_URLS must list https:// URLs with NODE_ENV=production');
  });

  it('names every invalid variable at once, and exits non-zero', async () => {
    const { code, output } = await failedStart({
      DATABASE_URL: 'mysql://nope',
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      AUTH_TOKENS: TEST_TOKEN,
    });

    expect(code).toBe(1);
    expect(output).toContain('PORT must be an integer number');
    expect(output).toContain('LOG_LEVEL must be one of the following values');
    expect(output).toContain('DATABASE_URL must be a postgres:// or postgresql:// URL');
  });

  it('refuses a weak static token without ever printing it', async () => {
    const { code, output } = await failedStart({
      DATABASE_URL: process.env.DATABASE_URL,
      AUTH_TOKENS: `${TEST_TOKEN},short-secret`,
    });

    expect(code).toBe(1);
    expect(output).toContain('AUTH_TOKENS entry 2 is shorter than 16 characters');
    expect(output).not.toContain('short-secret');
  });

  it('starts an embedded PostgreSQL when DATABASE_URL is unset, and keeps its data across restarts', async () => {
    // mkdtemp makes a private folder; a root user's PostgreSQL runs as `postgres` and must reach it.
    await chmod(workDir, 0o755);
    const env = { NODE_ENV: 'development', AUTH_TOKENS: TEST_TOKEN };
    // Both starts, the requests and both stops within the test's 120 s: a start that took longer
    // would still be waiting, its service running, after the test had failed.
    const first = await startService(env, { cwd: workDir, timeoutMs: 40_000 });
    try {
      await expect(create(first.url, TEST_TOKEN, { id: 1, name: 'Fern' })).resolves.toBe(200);
      // Started twice (`npm start` in a second terminal): the second says why it cannot; the first serves on.
      const twice = await failedStart(env, { cwd: workDir });
      expect(twice.code).toBe(1);
      expect(twice.output).toContain(
        `Plant Store failed to start: Another process (pid ${first.process.pid}) runs the embedded PostgreSQL in`,
      );
      await expect(create(first.url, TEST_TOKEN, { id: 2, name: 'Moss' })).resolves.toBe(200);
    } finally {
      await expect(first.stop()).resolves.toBe(0);
    }
    expect(first.output()).toContain('Embedded PostgreSQL stopped');

    const second = await startService(env, { cwd: workDir, timeoutMs: 40_000 });
    try {
      // The plant survived the restart: the same id with another name is refused.
      await expect(create(second.url, TEST_TOKEN, { id: 1, name: 'Moss' })).resolves.toBe(409);
      await expect(create(second.url, TEST_TOKEN, { id: 1, name: 'Fern' })).resolves.toBe(200);
    } finally {
      await expect(second.stop()).resolves.toBe(0);
    }
  }, 120_000);

  it('exits at a second Ctrl-C without waiting, and takes the embedded PostgreSQL down with it', async () => {
    await chmod(workDir, 0o755);
    const service = await startService(
      { NODE_ENV: 'development', AUTH_TOKENS: TEST_TOKEN },
      { cwd: workDir, timeoutMs: 40_000 },
    );
    const postmaster = Number(
      (await readFile(join(workDir, '.data/postgres/postmaster.pid'), 'utf8')).split('\n')[0],
    );
    expect(isRunning(postmaster)).toBe(true);
    // A create whose body never ends: the first signal's drain waits for it.
    const { port } = new URL(service.url);
    const stalled = connect(Number(port), '127.0.0.1');
    stalled.on('error', () => undefined);
    await once(stalled, 'connect');
    stalled.write(
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{"id": 3,',
    );
    try {
      service.process.kill('SIGINT');
      await eventually(() => service.output().includes('SIGINT received: draining'));
      const started = Date.now();

      await expect(service.stop('SIGINT')).resolves.toBe(1);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(service.output()).toContain('SIGINT received again: exiting now');
      // The server runs in a session of its own: only the service's exit hook stops it.
      await eventually(() => !isRunning(postmaster), 20_000);
    } finally {
      stalled.destroy();
      if (isRunning(postmaster)) {
        process.kill(postmaster, 'SIGQUIT');
      }
    }
  }, 90_000);

  (process.getuid?.() === 0 ? it : it.skip)(
    'explains, rather than fails obscurely, when the embedded server cannot reach its folder (root only)',
    async () => {
      const { code, output } = await failedStart(
        { NODE_ENV: 'development', AUTH_TOKENS: TEST_TOKEN, EMBEDDED_POSTGRES_DIR: join(workDir, 'pg') },
        { cwd: workDir },
      );

      expect(code).toBe(1);
      expect(output).toContain('cannot reach');
      expect(output).toContain('set EMBEDDED_POSTGRES_DIR');
    },
  );
});
