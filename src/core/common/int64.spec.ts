import { int64FromString, parseInt64 } from './int64.js';

describe('int64FromString', () => {
  it.each([
    ['0', 0],
    ['-5', -5],
    ['999999999999999', 999999999999999],
    ['-99999999999999', -99999999999999],
    ['9007199254740991', 9007199254740991],
    ['-9007199254740991', -9007199254740991],
    ['9007199254740992', 9007199254740992n],
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
  ])('reads %s as %p: a number while safe, a bigint beyond', (digits, expected) => {
    expect(int64FromString(digits)).toStrictEqual(expected);
  });
});

describe('parseInt64', () => {
  it.each(['', '+1', '1.0', ' 1', '9223372036854775808', '-9223372036854775809', '12345678901234567890'])(
    'refuses %p',
    (text) => {
      expect(parseInt64(text)).toBeUndefined();
    },
  );
});
