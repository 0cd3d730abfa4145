import fc from 'fast-check';

import { plantRows, truncateAll } from './support/database.js';
import { TEST_TOKEN } from './support/environment.js';
import { rawRequest } from './support/raw-request.js';
import { useTestApp } from './support/app.js';

const HEADERS = { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' };
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);

/** The contract's rules, written out independently of the service's code. */
function isValidText(value: unknown, { notBlank }: { notBlank: boolean }): value is string {
  if (typeof value !== 'string' || value.includes('\u0000') || !value.isWellFormed()) {
    return false;
  }
  const length = [...value].length;
  return length >= 1 && length <= 255 && (!notBlank || value.trim().length > 0);
}

/** Whether a JSON number literal, as sent, denotes an int64 (JSON.stringify writes the shortest form: 1e+21, -9223372036854776000). */
function isInt64Literal(literal: string): boolean {
  if (!/^-?\d+$/.test(literal)) {
    return false; // an exponent form: at least 1e21, beyond int64
  }
  const value = BigInt(literal);
  return value >= INT64_MIN && value <= INT64_MAX;
}

/** The JSON text of a NewPlant, with the id written exactly. */
function newPlantJson(id: bigint, name: string, tag?: string): string {
  const tagPart = tag === undefined ? '' : `, "tag": ${JSON.stringify(tag)}`;
  return `{"id": ${id}, "name": ${JSON.stringify(name)}${tagPart}}`;
}

const validName = fc
  .string({ unit: 'binary', minLength: 1, maxLength: 255 })
  .filter((name) => isValidText(name, { notBlank: true }));
const validTag = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 100 })
  .filter((tag) => isValidText(tag, { notBlank: false }));
const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX });

describe('properties of POST /plants over generated input', () => {
  const testApp = useTestApp();

  async function post(body: string | Buffer) {
    await truncateAll(testApp.db);
    const response = await rawRequest(testApp.url, { headers: HEADERS, body });
    return { response, rows: await plantRows(testApp.db) };
  }

  it('stores any valid NewPlant exactly as sent, and answers it back', async () => {
    await fc.assert(
      fc.asyncProperty(int64, validName, fc.option(validTag, { nil: undefined }), async (id, name, tag) => {
        const { response, rows } = await post(newPlantJson(id, name, tag));

        expect(response.status).toBe(200);
        expect(response.json).toStrictEqual(tag === undefined ? { name } : { name, tag });
        expect(rows).toStrictEqual([{ id: id.toString(), name, tag: tag ?? null }]);
      }),
      { numRuns: RUNS },
    );
  });

  it('never fails with a 5xx, and stores nothing, for arbitrary JSON values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const { response, rows } = await post(JSON.stringify(value));

        expect(response.status).toBeLessThan(500);
        if (response.status !== 200) {
          expect(response.json).toStrictEqual({ error: response.status, message: expect.any(String) });
          expect(rows).toStrictEqual([]);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('never fails with a 5xx, and stores nothing, for NewPlant-like objects with wrong fields', async () => {
    const anyField = fc.oneof(fc.jsonValue(), fc.string({ unit: 'binary' }), fc.bigInt().map(String));
    const candidate = fc.record(
      {
        id: fc.oneof(int64.map(Number), anyField),
        name: fc.oneof(validName, anyField),
        tag: anyField,
        extra: anyField,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(candidate, async (value) => {
        const { response, rows } = await post(JSON.stringify(value));
        const valid =
          typeof value.id === 'number' &&
          isInt64Literal(JSON.stringify(value.id)) &&
          isValidText(value.name, { notBlank: true }) &&
          (!('tag' in value) || isValidText(value.tag, { notBlank: false })) &&
          !('extra' in value);

        expect(response.status).toBe(valid ? 200 : 400);
        expect(rows).toHaveLength(valid ? 1 : 0);
      }),
      { numRuns: RUNS },
    );
  });

  it('never fails with a 5xx, and stores nothing, for arbitrary bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (bytes) => {
        const { response, rows } = await post(Buffer.from(bytes));

        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(response.json).toStrictEqual({ error: response.status, message: expect.any(String) });
        expect(rows).toStrictEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});
