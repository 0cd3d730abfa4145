import { BadRequestException } from '@nestjs/common';
import type { Request, Response } from 'express';

import { PreconditionRequiredError } from '../errors/domain-error.js';
import {
  parseCondition,
  parseHttpDate,
  readIfMatch,
  readIfNoneMatch,
  REQUIRE_IF_MATCH_SETTING,
  setValidators,
} from './conditional-requests.js';

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
      const answer = setValidators(
        response,
        { version: 3 },
        { tags: parseCondition('If-None-Match', value) },
      );
      expect(answer?.status).toBe(expected ? 304 : undefined);
      expect(headers.get('ETag')).toBe('"3"');
    }
    const { response, headers } = responseRecorder();
    expect(setValidators(response, { version: 3 }, undefined)).toBeUndefined();
    expect(headers.get('ETag')).toBe('"3"');
    expect(headers.has('Last-Modified')).toBe(false);
  });

  it('sends Last-Modified to the second, and answers 304 when nothing changed since If-Modified-Since', () => {
    const updatedAt = new Date('2026-11-28T10:20:30.750Z');
    for (const [since, expected] of [
      ['Sat, 28 Nov 2026 10:20:30 GMT', true],
      ['Sat, 28 Nov 2026 10:20:31 GMT', true],
      ['Sat, 28 Nov 2026 10:20:29 GMT', false],
    ] as const) {
      const { response, headers } = responseRecorder();
      const answer = setValidators(
        response,
        { version: 3, updatedAt },
        readIfNoneMatch(requestOf('GET', { 'if-modified-since': since })),
      );
      expect({ since, status: answer?.status }).toStrictEqual({ since, status: expected ? 304 : undefined });
      expect(headers.get('Last-Modified')).toBe('Sat, 28 Nov 2026 10:20:30 GMT');
    }
  });

  it('lets If-None-Match decide alone when both are sent, and ignores an If-Modified-Since that is no date', () => {
    const updatedAt = new Date('2026-11-28T10:20:30Z');
    const conditions = readIfNoneMatch(
      requestOf('GET', { 'if-none-match': '"4"', 'if-modified-since': 'Sat, 28 Nov 2026 10:20:30 GMT' }),
    );
    expect(setValidators(responseRecorder().response, { version: 3, updatedAt }, conditions)).toBeUndefined();
    expect(readIfNoneMatch(requestOf('GET', { 'if-modified-since': 'yesterday' }))).toBeUndefined();
  });

  it('reads If-Unmodified-Since only without If-Match, which wins', () => {
    const since = 'Sat, 28 Nov 2026 10:20:30 GMT';
    expect(readIfMatch(requestOf('PATCH', { 'if-unmodified-since': since }))).toStrictEqual({
      unmodifiedSince: new Date('2026-11-28T10:20:30Z'),
    });
    expect(
      readIfMatch(requestOf('PATCH', { 'if-match': '"2"', 'if-unmodified-since': since })),
    ).toStrictEqual({
      versions: [2],
    });
    expect(readIfMatch(requestOf('PATCH', { 'if-unmodified-since': 'not a date' }))).toBeUndefined();
  });

  it.each([
    ['Sun, 06 Nov 1994 08:49:37 GMT', '1994-11-06T08:49:37.000Z'],
    ['Sunday, 06-Nov-94 08:49:37 GMT', '1994-11-06T08:49:37.000Z'],
    ['Sun Nov  6 08:49:37 1994', '1994-11-06T08:49:37.000Z'],
  ])('reads the HTTP-date %j in each of its three forms', (value, iso) => {
    expect(parseHttpDate(value)?.toISOString()).toBe(iso);
  });

  it.each([
    ['2026-11-28T10:20:30Z'],
    ['Sat, 31 Feb 2026 10:20:30 GMT'],
    ['Sat, 28 Nov 2026 10:20:30 UTC'],
    [''],
  ])('reads %j as no date', (value) => {
    expect(parseHttpDate(value)).toBeUndefined();
  });

  it('asks for If-Match only when required', () => {
    expect(readIfMatch(requestOf('PATCH', {}))).toBeUndefined();
    expect(() => readIfMatch(requestOf('PATCH', {}, true))).toThrow(PreconditionRequiredError);
    expect(() => readIfMatch(requestOf('DELETE', {}, true))).toThrow(PreconditionRequiredError);
    expect(readIfMatch(requestOf('PATCH', { 'if-match': '"1"' }, true))).toStrictEqual({ versions: [1] });
  });
});
