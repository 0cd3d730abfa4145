import { HOSTILE_REQUESTS } from './corpus/hostile-requests.js';
import { plantRows } from './support/database.js';
import { rawRequest } from './support/raw-request.js';
import { useTestApp } from './support/app.js';

describe(`hostile and odd requests (${HOSTILE_REQUESTS.length} cases)`, () => {
  const testApp = useTestApp();

  it('holds at least 60 cases', () => {
    expect(HOSTILE_REQUESTS.length).toBeGreaterThanOrEqual(60);
  });

  it.each(HOSTILE_REQUESTS.map((corpusCase) => [corpusCase.name, corpusCase] as const))(
    '%s',
    async (_name, corpusCase) => {
      const response = await rawRequest(testApp.url, corpusCase.request);

      expect({ status: response.status, body: response.json }).toMatchObject({ status: corpusCase.status });
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      for (const [header, value] of Object.entries(corpusCase.headers ?? {})) {
        expect(response.headers[header]).toBe(value);
      }
      if (corpusCase.status >= 400) {
        expect(response.json).toStrictEqual({ error: corpusCase.status, message: expect.any(String) });
        if (corpusCase.message) {
          expect((response.json as { message: string }).message).toContain(corpusCase.message);
        }
        if (corpusCase.unechoed) {
          expect((response.json as { message: string }).message).not.toContain(corpusCase.unechoed);
        }
        await expect(plantRows(testApp.db)).resolves.toStrictEqual([]);
      } else {
        const { name, tag } = corpusCase.stored!;
        expect(response.json).toStrictEqual(tag === null ? { name } : { name, tag });
        await expect(plantRows(testApp.db)).resolves.toStrictEqual([corpusCase.stored]);
      }
    },
  );
});
