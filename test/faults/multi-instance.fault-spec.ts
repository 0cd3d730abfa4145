import pg from 'pg';

import { startAll } from '../support/cleanup.js';
import { TEST_TOKEN } from '../support/environment.js';
import { eventually } from '../support/eventually.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

const IDS = 200;

async function create(url: string, body: object) {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: JSON.parse(await response.text()) as { name?: string } };
}

describe('two instances (processes) on one fresh database', () => {
  const database = `plant_store_instances_${process.pid}_test`;
  const serverUrl = new URL(process.env.DATABASE_URL!);
  const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${database}` }).toString();
  let admin: pg.Client;
  let db: pg.Pool;
  let first: ServiceProcess;
  let second: ServiceProcess;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: serverUrl.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const env = { NODE_ENV: 'test', AUTH_TOKENS: TEST_TOKEN, DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' };
    // Started together, on a database without a single table: both want to migrate it.
    [first, second] = await startAll([startService(env), startService(env)], (started) => started.stop());
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  });

  afterAll(async () => {
    try {
      await Promise.all([first?.stop(), second?.stop(), db?.end()]);
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  });

  it('apply the migrations once, one instance at a time', async () => {
    const { rows } = await db.query<{ name: string; count: number }>(
      'SELECT name, count(*)::int AS count FROM typeorm_migrations GROUP BY name',
    );

    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((row) => row.count > 1)).toStrictEqual([]);
    const saying = (text: string) =>
      [first, second].filter((instance) => instance.output().includes(text)).length;
    // Log lines reach the output in blocks, a fraction of a second after they are written.
    await eventually(() => saying('Applied migrations') + saying('Database schema is up to date') >= 2);
    expect({
      applied: saying('Applied migrations'),
      upToDate: saying('Database schema is up to date'),
    }).toStrictEqual({
      applied: 1,
      upToDate: 1,
    });
  });

  it('settle conflicting creates of the same ids: one winner per id, whose plant is the row', async () => {
    const races = Array.from({ length: IDS }, (_, index) => index + 1).map(async (id) => {
      const [viaFirst, viaSecond] = await Promise.all([
        create(first.url, { id, name: `First ${id}` }),
        create(second.url, { id, name: `Second ${id}` }),
      ]);
      return { id, outcomes: [viaFirst, viaSecond] };
    });
    const results = await Promise.all(races);
    const { rows } = await db.query<{ id: string; name: string }>('SELECT id::text, name FROM plants');
    const stored = new Map(rows.map((row) => [row.id, row.name]));

    expect(stored.size).toBe(IDS);
    for (const { id, outcomes } of results) {
      const winners = outcomes.filter((outcome) => outcome.status === 200);
      const losers = outcomes.filter((outcome) => outcome.status === 409);
      expect({ id, winners: winners.length, losers: losers.length }).toStrictEqual({
        id,
        winners: 1,
        losers: 1,
      });
      expect(winners[0].body).toStrictEqual({ name: stored.get(String(id)) });
    }
    const firstWins = results.filter(({ outcomes }) => outcomes[0].status === 200).length;
    process.stdout.write(
      `\n  Two instances: ${IDS} contested ids, first instance won ${firstWins}, second ${IDS - firstWins}\n`,
    );
  });
});
