import { plantRows } from './support/database.js';
import { TEST_TOKEN } from './support/environment.js';
import { type TestApp, useTestApp } from './support/app.js';

const CONCURRENT = 50;

async function create(testApp: TestApp, body: object) {
  const response = await fetch(`${testApp.url}/plants`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: JSON.parse(await response.text()) as unknown };
}

describe(`${CONCURRENT} simultaneous creates of one id`, () => {
  const testApp = useTestApp();

  it('with the same plant: all answer 200 with it, and one row is stored', async () => {
    const plant = { id: 777, name: 'Ficus lyrata', tag: 'moraceae' };

    const responses = await Promise.all(Array.from({ length: CONCURRENT }, () => create(testApp, plant)));

    expect(responses).toStrictEqual(
      Array(CONCURRENT).fill({ status: 200, body: { name: 'Ficus lyrata', tag: 'moraceae' } }),
    );
    await expect(plantRows(testApp.db)).resolves.toStrictEqual([
      { id: '777', name: 'Ficus lyrata', tag: 'moraceae' },
    ]);
  });

  it('with different plants: exactly one wins with 200, its plant is the row, the others get 409', async () => {
    const plants = Array.from({ length: CONCURRENT }, (_, index) => ({
      id: 888,
      name: `Contender ${index}`,
    }));

    const responses = await Promise.all(plants.map((plant) => create(testApp, plant)));

    const winners = responses.filter((response) => response.status === 200);
    const losers = responses.filter((response) => response.status === 409);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(CONCURRENT - 1);
    expect(losers[0].body).toStrictEqual({
      error: 409,
      message: 'Plant id 888 is already taken by a plant with a different name or tag',
    });
    const [row] = await plantRows(testApp.db);
    expect(winners[0].body).toStrictEqual({ name: row.name });
    await expect(plantRows(testApp.db)).resolves.toHaveLength(1);
  });
});
