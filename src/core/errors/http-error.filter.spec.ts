import { jest } from '@jest/globals';
import {
  Controller,
  Post,
  type ArgumentsHost,
  BadRequestException,
  HttpStatus,
  Logger,
  NotFoundException,
  ParseBoolPipe,
  ParseEnumPipe,
  ParseIntPipe,
  ParseUUIDPipe,
  type PipeTransform,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { Request, Response } from 'express';

import { AllowedMethods } from '../http/allowed-methods.js';
import { DeclaredRoutes } from '../http/declared-routes.js';
import { PlantIdTakenError } from '../../plants/plant.errors.js';
import { OverloadedError, ServiceUnavailableError } from './domain-error.js';
import { HttpErrorFilter } from './http-error.filter.js';

interface Captured {
  status?: number;
  headers: Record<string, string>;
  body?: unknown;
  destroyed: boolean;
}

function hostFor(
  request: Partial<Request>,
  headersSent = false,
): { host: ArgumentsHost; captured: Captured } {
  const captured: Captured = { headers: {}, destroyed: false };
  const response = {
    headersSent,
    status(code: number) {
      captured.status = code;
      return this;
    },
    set(headers: Record<string, string>) {
      Object.assign(captured.headers, headers);
      return this;
    },
    json(body: unknown) {
      captured.body = body;
      return this;
    },
    destroy() {
      captured.destroyed = true;
    },
  } as unknown as Response;
  const fullRequest = { method: 'POST', path: '/plants', id: 'req-1', ...request } as Request;
  const host = {
    switchToHttp: () => ({ getRequest: () => fullRequest, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  return { host, captured };
}

describe('HttpErrorFilter', () => {
  @Controller('plants')
  class PlantRoutes {
    @Post()
    create(): void {}
  }
  // An application whose one route is POST /plants.
  let filter: HttpErrorFilter;
  beforeAll(async () => {
    const app = await Test.createTestingModule({
      imports: [DiscoveryModule],
      controllers: [PlantRoutes],
      providers: [DeclaredRoutes, AllowedMethods, HttpErrorFilter],
    }).compile();
    filter = app.get(HttpErrorFilter);
  });

  const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  beforeEach(() => {
    logged.mockClear();
    warned.mockClear();
  });
  afterAll(() => {
    logged.mockRestore();
    warned.mockRestore();
  });

  it('answers an HTTP exception with its status and one message string', () => {
    const { host, captured } = hostFor({});

    filter.catch(new BadRequestException(['id is required', 'name is required']), host);

    expect(captured).toMatchObject({
      status: 400,
      body: { error: 400, message: 'id is required; name is required' },
    });
    expect(logged).not.toHaveBeenCalled();
  });

  enum Colour {
    Green = 'green',
  }
  it.each<[string, PipeTransform, string]>([
    ['ParseIntPipe', new ParseIntPipe(), 'Validation failed (numeric string is expected)'],
    ['ParseBoolPipe', new ParseBoolPipe(), 'Validation failed (boolean string is expected)'],
    ['ParseUUIDPipe', new ParseUUIDPipe(), 'Validation failed (uuid is expected)'],
    ['ParseEnumPipe', new ParseEnumPipe(Colour), 'Validation failed (enum string is expected)'],
  ])("answers %s's refusal with 400 and Nest's own words", async (_name, pipe, message) => {
    const refusal: unknown = await Promise.resolve()
      .then((): unknown => pipe.transform('not-it', { type: 'param', data: 'id' }))
      .catch((error: unknown) => error);
    const { host, captured } = hostFor({});

    filter.catch(refusal, host);

    expect(captured).toMatchObject({ status: 400, body: { error: 400, message } });
    expect(logged).not.toHaveBeenCalled();
  });

  it('maps domain errors through the one table: a taken id is 409', () => {
    const { host, captured } = hostFor({});

    filter.catch(new PlantIdTakenError('7'), host);

    expect(captured.status).toBe(HttpStatus.CONFLICT);
    expect(captured.body).toStrictEqual({
      error: 409,
      message: 'Plant id 7 is already taken by a plant with a different name or tag',
    });
  });

  it('answers a constraint the database enforced by its kind, never 500, when the resource did not word it', () => {
    const refusal = (code: string, message: string) =>
      Object.assign(new Error('query failed'), { driverError: Object.assign(new Error(message), { code }) });
    const cases = [
      [refusal('23505', 'duplicate key value violates unique constraint "plants_pkey"'), 409],
      [refusal('23503', 'insert or update on table "shrubs" violates foreign key constraint "f"'), 422],
      [refusal('23503', 'update or delete on table "gardens" violates foreign key constraint "f"'), 409],
      [refusal('23001', 'update or delete on table "gardens" violates RESTRICT setting of "f"'), 409],
      [refusal('23514', 'new row for relation "plants" violates check constraint "c"'), 400],
      [refusal('22P02', 'invalid input syntax for type bigint: "x"'), 400],
    ] as const;

    const answers = cases.map(([failure]) => {
      const { host, captured } = hostFor({});
      filter.catch(failure, host);
      return captured.body as { error: number; message: string };
    });

    expect(answers.map(({ error }) => error)).toStrictEqual(cases.map(([, status]) => status));
    // In the service's words, not the database's: no table or constraint name reaches the client.
    expect(answers.every(({ message }) => !/shrubs|gardens|plants|constraint/.test(message))).toBe(true);
    expect(logged).not.toHaveBeenCalled();
  });

  it('answers 503 with Retry-After when the database is unreachable, however the driver says it', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const adminShutdown = Object.assign(new Error('terminating connection'), { code: '57P01' });
    for (const failure of [new ServiceUnavailableError(), refused, { driverError: adminShutdown }]) {
      const { host, captured } = hostFor({});

      filter.catch(failure, host);

      expect(captured).toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
      expect(captured.body).toStrictEqual({ error: 503, message: expect.stringMatching(/unavailable/) });
    }
    // Each is a warning for the operator, naming the cause; none is an error with a stack.
    expect(warned.mock.calls.map(([message]) => String(message))).toStrictEqual([
      'POST /plants answered 503: The database is unavailable; retry later',
      'POST /plants answered 503: connect ECONNREFUSED 127.0.0.1:5432',
      'POST /plants answered 503: terminating connection',
    ]);
    expect(logged).not.toHaveBeenCalled();
  });

  it('answers 503 without a line of its own when the source logs the cause once for all it fails', () => {
    const keySet = new ServiceUnavailableError("The token issuer's key set cannot be fetched; retry later", {
      loggedAtSource: true,
    });
    for (const failure of [keySet, new OverloadedError()]) {
      const { host, captured } = hostFor({});

      filter.catch(failure, host);

      expect(captured).toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    }
    expect(warned).not.toHaveBeenCalled();
    expect(logged).not.toHaveBeenCalled();
  });

  it('hides an unexpected fault behind a generic 500, and logs its stack with the request id', () => {
    const { host, captured } = hostFor({ id: 'req-42' });

    filter.catch(new TypeError('secret internals at /srv/app.js:1'), host);

    expect(captured).toMatchObject({ status: 500, body: { error: 500, message: 'Internal server error' } });
    expect(logged).toHaveBeenCalledWith(
      expect.stringContaining('request req-42'),
      expect.stringContaining('TypeError: secret internals'),
    );
  });

  it('answers 405 with Allow for a path that exists under another method', () => {
    const { host, captured } = hostFor({ method: 'GET', path: '/plants' });

    filter.catch(new NotFoundException('Cannot GET /plants'), host);

    expect(captured).toMatchObject({ status: 405, headers: { Allow: 'POST' } });
    expect(captured.body).toStrictEqual({
      error: 405,
      message: 'Method GET is not allowed on /plants; allowed: POST',
    });
  });

  it('cuts a message longer than the document allows, by code points, and says so with …', () => {
    const path = `/${'🌱'.repeat(2_000)}`;
    const { host, captured } = hostFor({ method: 'GET', path });

    filter.catch(new NotFoundException(`Cannot GET ${path}`), host);

    const { message } = captured.body as { message: string };
    expect([...message]).toHaveLength(1024);
    expect(message).toMatch(/^Cannot GET \/🌱+…$/u);
  });

  it('keeps 404 for a path that does not exist', () => {
    const { host, captured } = hostFor({ method: 'GET', path: '/nowhere' });

    filter.catch(new NotFoundException('Cannot GET /nowhere'), host);

    expect(captured).toMatchObject({ status: 404, body: { error: 404, message: 'Cannot GET /nowhere' } });
  });

  it('ends the connection instead of writing a second answer when one is already on the wire', () => {
    const { host, captured } = hostFor({}, true);

    filter.catch(new Error('late failure'), host);

    expect(captured).toStrictEqual({ headers: {}, destroyed: true });
  });
});
