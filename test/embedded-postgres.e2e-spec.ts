import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';

import { EmbeddedPostgres } from '../src/core/database/embedded-postgres.js';

describe('EmbeddedPostgres settings', () => {
  let workDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'plant-store-embedded-'));
    // Run as root, PostgreSQL runs as its own user, who must reach the data directory.
    await chmod(workDir, 0o755);
  });

  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('starts the server with the given settings', async () => {
    const server = await EmbeddedPostgres.start({
      dataDir: join(workDir, 'data'),
      database: 'settings_test',
      ephemeral: true,
      settings: { shared_buffers: '48MB', 'plant_store.marker': 'on' },
    });
    const client = new pg.Client({ connectionString: server.url });
    try {
      await client.connect();
      const sharedBuffers = await client.query<{ shared_buffers: string }>('SHOW shared_buffers');
      const marker = await client.query<{ value: string }>(
        "SELECT current_setting('plant_store.marker') AS value",
      );

      expect(sharedBuffers.rows[0].shared_buffers).toBe('48MB');
      expect(marker.rows[0].value).toBe('on');
    } finally {
      await client.end();
      await server.stop();
    }
  });

  it.each([
    ['a name that would add an option', { 'shared_buffers=1 -c fsync': 'off' }],
    ['a value that would add an option', { shared_buffers: '48MB -c fsync=off' }],
  ])('refuses %s before it starts anything', async (_, settings) => {
    const dataDir = join(workDir, 'refused');

    await expect(
      EmbeddedPostgres.start({ dataDir, database: 'settings_test', ephemeral: true, settings }),
    ).rejects.toThrow('Not a PostgreSQL setting');
    await expect(stat(dataDir)).rejects.toThrow();
  });

  it('stops the server it started when it cannot create the database', async () => {
    const dataDir = join(workDir, 'no-database');

    // PostgreSQL refuses a NUL in a name, once the server is up.
    await expect(EmbeddedPostgres.start({ dataDir, database: 'no\0database' })).rejects.toThrow('0x00');
    await expect(stat(join(dataDir, 'postmaster.pid'))).rejects.toThrow();
  });
});
