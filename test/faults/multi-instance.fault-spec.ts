import { plantRows, truncatePlants } from '../support/database.js';
import { TEST_TOKEN } from '../support/environment.js';
import { startTestApp, type TestApp } from '../support/app.js';

const IDS = 200;

async function create(url: string, body: object) {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: JSON.parse(await response.text()) as { name?: string } };
}

describe('two instances on one database', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    [first, second] = await Promise.all([startTestApp(), startTestApp()]);
    await truncatePlants(first.db);
  });

  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
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
    const rows = new Map((await plantRows(first.db)).map((row) => [row.id, row.name]));

    expect(rows.size).toBe(IDS);
    for (const { id, outcomes } of results) {
      const winners = outcomes.filter((outcome) => outcome.status === 200);
      const losers = outcomes.filter((outcome) => outcome.status === 409);
      expect({ id, winners: winners.length, losers: losers.length }).toStrictEqual({
        id,
        winners: 1,
        losers: 1,
      });
      expect(winners[0].body).toStrictEqual({ name: rows.get(String(id)) });
    }
    // Both instances won some: the race was real.
    const firstWins = results.filter(({ outcomes }) => outcomes[0].status === 200).length;
    process.stdout.write(
      `\n  Two instances: ${IDS} contested ids, first instance won ${firstWins}, second ${IDS - firstWins}\n`,
    );
  });

  it('apply migrations once when they start together', async () => {
    const { rows } = await first.db.query<{ count: string }>(
      'SELECT count(*)::text AS count FROM typeorm_migrations',
    );

    expect(Number(rows[0].count)).toBeGreaterThan(0);
    const { rows: duplicates } = await first.db.query(
      'SELECT name FROM typeorm_migrations GROUP BY name HAVING count(*) > 1',
    );
    expect(duplicates).toStrictEqual([]);
  });
});
