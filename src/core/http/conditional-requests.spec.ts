import { BadRequestException } from '@nestjs/common';
import type { Request, Response } from 'express';

import { PreconditionRequiredError } from '../errors/domain-error.js';
import { parseCondition, readIfMatch, REQUIRE_IF_MATCH_SETTING, setETag } from './conditional-requests.js';

function requestOf(method: string, headers: Record<string, string>, requireIfMatch = false): Request {
  const settings = new Map<string, unknown>([[REQUIRE_IF_MATCH_SETTING, requireIfMatch]]);
  return { method, headers, app: { get: (name: string) => settings.get(name) } } as unknown as Request;
}

function responseRecorder() {
  const headers = new Map<string, string>();
  const response = {
    statusCode: 200,
    setHeader: (name: string, value: string) => headers.set(name, value),
  };
  return { response: response as unknown as Response, headers, status: () => response.statusCode };
}

describe('conditional requests', () => {
  it.each([
    ['*', '*'],
    [' * ', '*'],
    ['"3"', [{ weak: false, opaque: '3' }]],
    [
      'W/"3", "4"',
      [
        { weak: true, opaque: '3' },
        { weak: false, opaque: '4' },
      ],
    ],
    [
      '"a",,  "b" ,',
      [
        { weak: false, opaque: 'a' },
        { weak: false, opaque: 'b' },
      ],
    ],
    ['""', [{ weak: false, opaque: '' }]],
  ])('parses %j as RFC 9110 writes it', (value, expected) => {
    expect(parseCondition('If-Match', value)).toStrictEqual(expected);
  });

  it.each([['3'], ['"3'], ['w/"3"'], ['"a"b"'], [','], [''], ['*, "3"'], ['"has space"']])(
    'refuses %j with 400, naming the header',
    (value) => {
      expect(() => parseCondition('If-None-Match', value)).toThrow(
        new BadRequestException('If-None-Match must be * or a list of entity tags such as "3"'),
      );
    },
  );

  it('checks strong versions only, and nothing at all without If-Match or with *', () => {
    const ifMatch = (value?: string) =>
      readIfMatch(requestOf('PATCH', value === undefined ? {} : { 'if-match': value }));
    expect(ifMatch()).toBeUndefined();
    expect(ifMatch('*')).toBeUndefined();
    expect(ifMatch('"2", W/"3", "x", "0", "01", "4"')).toStrictEqual({ versions: [2, 4] });
    expect(ifMatch('"99999999999"')).toStrictEqual({ versions: [] });
    expect(() => ifMatch('3')).toThrow(
      new BadRequestException('If-Match must be * or a list of entity tags such as "3"'),
    );
  });

  it('answers 304 when If-None-Match names the version weakly, or is *, and sets the ETag either way', () => {
    for (const [value, expected] of [
      ['"3"', true],
      ['W/"3"', true],
      ['"1", "3"', true],
      ['*', true],
      ['"4"', false],
    ] as const) {
      const { response, headers } = responseRecorder();
      const answer = setETag(response, 3, parseCondition('If-None-Match', value));
      expect(answer?.status).toBe(expected ? 304 : undefined);
      expect(headers.get('ETag')).toBe('"3"');
    }
    const { response, headers } = responseRecorder();
    expect(setETag(response, 3, undefined)).toBeUndefined();
    expect(headers.get('ETag')).toBe('"3"');
  });

  it('asks for If-Match only when required', () => {
    expect(readIfMatch(requestOf('PATCH', {}))).toBeUndefined();
    expect(() => readIfMatch(requestOf('PATCH', {}, true))).toThrow(PreconditionRequiredError);
    expect(() => readIfMatch(requestOf('DELETE', {}, true))).toThrow(PreconditionRequiredError);
    expect(readIfMatch(requestOf('PATCH', { 'if-match': '"1"' }, true))).toStrictEqual({ versions: [1] });
  });
});
