import fc from 'fast-check';

import {
  describeSyntaxError,
  InexactNumber,
  JsonKeyError,
  JsonSyntaxError,
  keyForMessage,
  MAX_JSON_DEPTH,
  parseExactNumber,
  parseJson,
  stringifyJson,
} from './json.js';

describe('parseJson', () => {
  it('keeps every digit of integers beyond 2^53, where JSON.parse rounds', () => {
    expect(JSON.parse('{"id": 9007199254740993}')).toStrictEqual({ id: 9007199254740992 });

    expect(parseJson('{"id": 9007199254740993}')).toStrictEqual({ id: 9007199254740993n });
    expect(parseJson('{"id": -9223372036854775808}')).toStrictEqual({ id: -9223372036854775808n });
  });

  it('hands safe integers over as numbers, whichever path parsed them', () => {
    expect(parseJson('{"id": 42, "name": "Fern"}')).toStrictEqual({ id: 42, name: 'Fern' });
    expect(parseJson('{"id": 42, "big": 9007199254740993}')).toStrictEqual({
      id: 42,
      big: 9007199254740993n,
    });
  });

  it('reads integer-valued fractions and exponents as the integers they denote (JSON Schema)', () => {
    expect(parseJson('{"id": 1.0}')).toStrictEqual({ id: 1 });
    expect(parseJson('{"id": 1e3}')).toStrictEqual({ id: 1000 });
    expect(parseJson('{"id": 9223372036854775807.000}')).toStrictEqual({ id: 9223372036854775807n });
    expect(parseJson('{"id": 92233720368547758.07E2}')).toStrictEqual({ id: 9223372036854775807n });
  });

  it('does not let a fraction that JSON.parse would round away pass as an integer', () => {
    expect(JSON.parse('{"id": 1.00000000000000001}')).toStrictEqual({ id: 1 });

    const { id } = parseJson('{"id": 1.00000000000000001}') as { id: unknown };
    expect(id).toBeInstanceOf(InexactNumber);
  });

  it('reads other fractions as JSON.parse does, so number rules still see numbers', () => {
    expect(parseJson('{"id": 9007199254740993, "price": 1.5, "ratio": 2.5e-3}')).toStrictEqual({
      id: 9007199254740993n,
      price: 1.5,
      ratio: 0.0025,
    });
  });

  it('keeps duplicate keys as JSON.parse does: the last one wins, on both paths', () => {
    expect(parseJson('{"id": 1, "id": 2}')).toStrictEqual({ id: 2 });
    expect(parseJson('{"id": 1, "id": 9007199254740993}')).toStrictEqual({ id: 9007199254740993n });
  });

  it('refuses __proto__, constructor and prototype as keys at any depth, on both paths, naming the path', () => {
    for (const [text, path] of [
      ['{"__proto__": {"polluted": 1}}', '__proto__'],
      ['{"__proto__": {"polluted": 1}, "n": 1.5e0}', '__proto__'],
      ['{"id": 9007199254740993, "constructor": {}}', 'constructor'],
      ['{"a": {"prototype": 1}}', 'a.prototype'],
      ['{"items": [{"sku": "A"}, {"b": [{"__proto__": null}]}]}', 'items[1].b[0].__proto__'],
      ['[{"constructor": 1}]', '[0].constructor'],
      ['{"\\u005f_proto__": {}}', '__proto__'],
    ]) {
      expect(() => parseJson(text)).toThrow(new JsonKeyError(`property ${path} is not allowed`));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts the same words as values, and keys that only look like them', () => {
    expect(
      parseJson('{"name": "__proto__", "tags": ["constructor"], "proto": 1, "Constructor": 2, "__proto": 3}'),
    ).toStrictEqual({ name: '__proto__', tags: ['constructor'], proto: 1, Constructor: 2, __proto: 3 });
  });

  it('names a long parent key by its beginning only', () => {
    const key = 'k'.repeat(10_000);

    expect(() => parseJson(`{"${key}": {"prototype": 1}}`)).toThrow(
      `property ${'k'.repeat(32)}….prototype is not allowed`,
    );
  });

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels without exhausting the stack`, () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

    expect(() => parseJson(deep)).toThrow(JsonSyntaxError);
    expect(() => parseJson(`{"id": 9007199254740993, "x": ${deep}}`)).toThrow(/nested deeper/);
    expect(parseJson(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`)).toBeDefined();
  });

  it('reports malformed JSON and trailing garbage as a syntax error', () => {
    expect(() => parseJson('{"id": 1')).toThrow(JsonSyntaxError);
    expect(() => parseJson('{"id": 1} x')).toThrow(JsonSyntaxError);
    expect(() => parseJson('')).toThrow(JsonSyntaxError);
  });
});

describe('a syntax error', () => {
  const messageOf = (text: string) => {
    try {
      parseJson(text);
    } catch (error) {
      expect(error).toBeInstanceOf(JsonSyntaxError);
      return (error as Error).message;
    }
    throw new Error(`${text} parsed`);
  };

  it.each([
    ['{"id": 1} x', 'unexpected character after the JSON value at line 1, column 11'],
    ['{"id": 1, "name": "Fern"', 'unexpected end of the body at line 1, column 25'],
    ['{\n  "id": 1,\n  "name": secret\n}', 'unexpected character at line 3, column 11'],
    ["{'id': 1}", 'expected a property name at line 1, column 2'],
    ['{"id": 1,}', 'expected a property name at line 1, column 10'],
    ['{"id" 1}', "expected ':' after a property name at line 1, column 7"],
    ['{"a": [1 2]}', "expected ',' or ']' at line 1, column 10"],
    ['{"a": 1 "b": 2}', "expected ',' or '}' at line 1, column 9"],
    ['{"id": 007}', "expected ',' or '}' at line 1, column 9"],
    ['{"id": -x}', 'invalid number at line 1, column 8'],
    ['{"a": "x\\q"}', 'invalid escape in a string at line 1, column 10'],
    ['{"a": "\\u12G4"}', 'invalid escape in a string at line 1, column 9'],
    ['{"a": "x\ty"}', 'control character in a string at line 1, column 9'],
    ['{"🌿🌿": tru}', 'unexpected character at line 1, column 8'],
    ['\ufeff{}', 'unexpected character at line 1, column 1'],
    ['   ', 'unexpected end of the body at line 1, column 4'],
  ])('in %j is named with its line and column', (text, description) => {
    expect(messageOf(text)).toBe(description);
  });

  it('quotes nothing of the text, where JSON.parse quotes it', () => {
    const text = '{"token": "s3cr3t-value", "name": s3cr3t}';
    expect(() => JSON.parse(text) as unknown).toThrow(/s3cr3t/);

    expect(messageOf(text)).not.toContain('s3cr3t');
  });

  it('is found wherever JSON.parse finds one, and nowhere else', () => {
    const character = fc.constantFrom(...'{}[]":,.-+0159eEtrufalsn \\\n/ux'.split(''));
    const jsonish = fc.string({ unit: character });
    // A valid text with one character changed: faults where JSON.parse looks hardest.
    const altered = fc.tuple(fc.json(), fc.nat(), character).map(([text, index, replacement]) => {
      const at = index % (text.length + 1);
      return `${text.slice(0, at)}${replacement}${text.slice(at + 1)}`;
    });
    fc.assert(
      fc.property(fc.oneof(jsonish, fc.json(), altered), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(describeSyntaxError(text) === 'its syntax is broken').toBe(valid);
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('keyForMessage', () => {
  it('keeps short keys, and cuts long ones without splitting a surrogate pair', () => {
    expect(keyForMessage('colour')).toBe('colour');
    expect(keyForMessage('x'.repeat(32))).toBe('x'.repeat(32));
    expect(keyForMessage(`${'x'.repeat(31)}🌱🌱`)).toBe(`${'x'.repeat(31)}…`);
    expect(keyForMessage(`${'x'.repeat(30)}🌱🌱`)).toBe(`${'x'.repeat(30)}🌱…`);
  });
});

describe('parseExactNumber', () => {
  it.each([
    ['0', 0],
    ['-0', 0],
    ['0e99999999999', 0],
    ['12', 12],
    ['-12.50e1', -125],
    ['9007199254740991', 9007199254740991],
    ['9007199254740992', 9007199254740992n],
    ['-9223372036854775809', -9223372036854775809n],
    ['1e19', 10000000000000000000n],
  ])('reads %s exactly', (literal, expected) => {
    expect(parseExactNumber(literal)).toStrictEqual(expected);
  });

  it.each([
    ['1.5', 1.5],
    ['1e-1', 0.1],
    ['1e400', Infinity],
    ['1e99999999999', Infinity],
    ['123456789012345678901234567890123456789012', 1.2345678901234568e41],
  ])(
    'reads %s, which is no int64-sized integer, as the double JSON.parse makes of it',
    (literal, expected) => {
      expect(parseExactNumber(literal)).toBe(expected);
    },
  );

  it.each(['1.00000000000000001', '1e-400', '9007199254740993.5'])(
    'keeps %s, a fraction whose nearest double is an integer, apart as an InexactNumber',
    (literal) => {
      expect(parseExactNumber(literal)).toStrictEqual(new InexactNumber(literal));
    },
  );
});

describe('stringifyJson', () => {
  it('writes ids beyond 2^53 with every digit, as JSON numbers', () => {
    expect(stringifyJson([{ id: 9223372036854775807n, name: 'Fern' }, { id: 1 }])).toBe(
      '[{"id":9223372036854775807,"name":"Fern"},{"id":1}]',
    );
  });

  it('is JSON.stringify for everything else', () => {
    const value = { name: 'Fern', tag: 'e\u0301', nested: [1, null, true] };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });
});
