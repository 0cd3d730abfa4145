import { countPreference } from './prefer.js';

describe('countPreference', () => {
  it.each([
    ['count=exact', 'exact'],
    ['count=estimated', 'estimated'],
    ['Count=Exact', 'exact'],
    ['count = exact', 'exact'],
    ['count="estimated"', 'estimated'],
    ['return=minimal, count=exact', 'exact'],
    ['count=exact; strict', 'exact'],
    ['foo="a,count=estimated", count=exact', 'exact'],
    ['count=estimated, count=exact', 'estimated'],
    [['handling=lenient', 'count=exact'], 'exact'],
  ])('reads %p as %p', (header, expected) => {
    expect(countPreference(header)).toBe(expected);
  });

  it.each([
    undefined,
    '',
    'count',
    'count=',
    'count=planned',
    'count=exact-ish',
    'counts=exact',
    'count=planned, count=exact',
  ])('finds no count it serves in %p', (header) => {
    expect(countPreference(header)).toBeUndefined();
  });
});
