import { successorOf } from './list-batch.js';

describe('successorOf', () => {
  it('counts the last code point up, so that every text with the prefix sorts before it', () => {
    expect(successorOf('Plant 12')).toBe('Plant 13');
    expect(successorOf('a\\')).toBe('a]');
    expect(successorOf('x😀')).toBe('x😁');
  });

  it('steps over the surrogates, which UTF-8 does not hold', () => {
    expect(successorOf('a\uD7FF')).toBe('a\uE000');
  });

  it('drops a last code point that has no successor, and has none for a prefix of only those', () => {
    expect(successorOf('a\u{10FFFF}')).toBe('b');
    expect(successorOf('\u{10FFFF}\u{10FFFF}')).toBeUndefined();
    expect(successorOf('')).toBeUndefined();
  });
});
