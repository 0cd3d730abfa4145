import { parseMediaType } from './media-type.js';

describe('parseMediaType', () => {
  it('reads the type and its parameters, in any letter case, with white space around the semicolons', () => {
    const parsed = parseMediaType('APPLICATION/JSON ;\tCharset=UTF-8; q="a \\"b\\"; c"');

    expect(parsed?.type).toBe('application/json');
    expect(Object.fromEntries(parsed!.parameters)).toStrictEqual({ charset: 'UTF-8', q: 'a "b"; c' });
    expect(parseMediaType('application/json')).toStrictEqual({
      type: 'application/json',
      parameters: new Map(),
    });
  });

  it.each([
    ['a parameter without a value', 'application/json; charset'],
    ['a parameter without a value, not charset', 'application/json; foo'],
    ['an empty value', 'application/json; charset='],
    ['empty parameters', 'application/json;;;'],
    ['a trailing semicolon', 'application/json; charset=utf-8;'],
    ['an unterminated quote', 'application/json; charset="utf-8'],
    ['white space around =', 'application/json; charset = utf-8'],
    ['a value with a space, unquoted', 'application/json; charset=utf 8'],
    ['a parameter given twice', 'application/json; charset=utf-8; Charset=latin1'],
    ['no subtype', 'application'],
    ['two slashes', 'application/json/plants'],
    ['an empty header', ''],
    ['a control character', 'application/json; charset="utf\u0000-8"'],
  ])('refuses %s', (_case, header) => {
    expect(parseMediaType(header)).toBeUndefined();
  });
});
