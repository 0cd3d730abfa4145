import {
  type ArgumentMetadata,
  BadRequestException,
  type Type,
  UnsupportedMediaTypeException,
} from '@nestjs/common';

import { UnsupportedBody } from '../http/json-body.parser.js';
import { NewPlantDto } from '../../plants/dto/new-plant.dto.js';
import { StrictValidationPipe } from './strict-validation.pipe.js';

/** What `nest g resource` writes: a DTO with no rules at all. */
class CreateGizmoDto {}

describe('StrictValidationPipe', () => {
  const pipe = new StrictValidationPipe();
  const validate = (value: unknown, metadata: ArgumentMetadata = { type: 'body', metatype: NewPlantDto }) =>
    pipe.transform(value, metadata);
  const messageOf = (value: unknown, metadata?: ArgumentMetadata): string => {
    try {
      validate(value, metadata);
    } catch (error) {
      expect(error).toBeInstanceOf(BadRequestException);
      return (error as BadRequestException).message;
    }
    throw new Error('the pipe accepted the value');
  };

  it('returns a NewPlantDto holding exactly the declared fields', () => {
    const dto = validate({ id: 9007199254740993n, name: 'Fern', tag: 'pteridophyte' });

    expect(dto).toBeInstanceOf(NewPlantDto);
    expect({ ...(dto as object) }).toStrictEqual({
      id: 9007199254740993n,
      name: 'Fern',
      tag: 'pteridophyte',
    });
  });

  it('refuses anything but a JSON object', () => {
    for (const value of [null, [], 'text', 42, true]) {
      expect(messageOf(value)).toBe('Request body must be a JSON object');
    }
  });

  it('names every unknown property, the prototype keys included, and leaves the prototype alone', () => {
    const body = JSON.parse(
      '{"id": 1, "name": "Fern", "__proto__": {"x": 1}, "constructor": 1, "prototype": 1}',
    );

    expect(messageOf(body)).toBe(
      'property __proto__ is not allowed; property constructor is not allowed; property prototype is not allowed',
    );
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('names every broken rule in one message, one per field', () => {
    expect(messageOf({ tag: '' })).toBe(
      'id is required; name is required; tag must be a string of 1 to 255 characters, without U+0000',
    );
  });

  it.each([
    [{ id: 1.5, name: 'Fern' }, 'id must be an integer from -9223372036854775808 to 9223372036854775807'],
    [{ id: '1', name: 'Fern' }, 'id must be an integer from -9223372036854775808 to 9223372036854775807'],
    [
      { id: 2n ** 63n, name: 'Fern' },
      'id must be an integer from -9223372036854775808 to 9223372036854775807',
    ],
    [
      { id: 1, name: ' \t\n' },
      'name must be a string of 1 to 255 characters that is not only white space, without U+0000',
    ],
    [
      { id: 1, name: 'a\u0000b' },
      'name must be a string of 1 to 255 characters that is not only white space, without U+0000',
    ],
    [
      { id: 1, name: 'x'.repeat(256) },
      'name must be a string of 1 to 255 characters that is not only white space, without U+0000',
    ],
    [{ id: 1, name: 'Fern', tag: null }, 'tag must be a string of 1 to 255 characters, without U+0000'],
    [{ id: 1, name: 'Fern', tag: '\ud800' }, 'tag must be a string of 1 to 255 characters, without U+0000'],
  ])('refuses %p', (body, message) => {
    expect(messageOf(body)).toBe(message);
  });

  it('counts characters as code points: 255 emoji are a valid name', () => {
    expect(() => validate({ id: 1, name: '🌱'.repeat(255) })).not.toThrow();
    expect(messageOf({ id: 1, name: '🌱'.repeat(256) })).toMatch(/^name must be/);
  });

  it('passes values of other kinds of parameter through untouched', () => {
    expect(pipe.transform('42', { type: 'param', metatype: String })).toBe('42');
  });

  it('leaves the values of custom parameter decorators alone, undefined and DTO-typed ones included', () => {
    const body = { id: 1, name: 'Fern', extra: true };

    expect(pipe.transform(undefined, { type: 'custom', metatype: String })).toBeUndefined();
    expect(pipe.transform(undefined, { type: 'custom', metatype: NewPlantDto })).toBeUndefined();
    expect(pipe.transform(body, { type: 'custom', metatype: NewPlantDto })).toBe(body);
    expect(pipe.transform(body, { type: 'custom', metatype: Object })).toBe(body);
  });

  it.each<unknown>([Object, String, Number, Boolean, BigInt, Array, Date, Buffer, Map])(
    'leaves a body typed %p (an interface, a Record, any, a primitive) to the handler',
    (metatype) => {
      const body = { anything: 1, at: { all: [] } };

      expect(pipe.transform(body, { type: 'body', metatype: metatype as Type })).toBe(body);
      expect(pipe.transform(body, { type: 'body' })).toBe(body);
    },
  );

  it('still needs a JSON body on a route whose body is typed loosely', () => {
    expect(() => pipe.transform(undefined, { type: 'body', metatype: Object })).toThrow(
      new BadRequestException('A JSON request body is required'),
    );
    expect(() => pipe.transform(new UnsupportedBody('text/plain', 'POST'), { type: 'body' })).toThrow(
      UnsupportedMediaTypeException,
    );
  });

  it("hands over one property of the body with @Body('name'), even when it is missing", () => {
    expect(pipe.transform(undefined, { type: 'body', metatype: String, data: 'name' })).toBeUndefined();
    expect(pipe.transform('Fern', { type: 'body', metatype: String, data: 'name' })).toBe('Fern');
  });

  describe('a DTO with no rules, as whitelist and forbidNonWhitelisted treat it', () => {
    const gizmo = { type: 'body', metatype: CreateGizmoDto } as const;

    it('accepts {} as an instance of the DTO', () => {
      expect(validate({}, gizmo)).toBeInstanceOf(CreateGizmoDto);
    });

    it('refuses any property, naming it', () => {
      expect(messageOf({ notAField: 1 }, gizmo)).toBe('property notAField is not allowed');
      expect(messageOf({ a: 1, b: 2 }, gizmo)).toBe('property a is not allowed; property b is not allowed');
    });

    it('refuses query parameters the same way', () => {
      expect(messageOf({ page: '2' }, { type: 'query', metatype: CreateGizmoDto })).toBe(
        'query parameter page is not allowed',
      );
    });

    it('still wants an object', () => {
      expect(messageOf([], gizmo)).toBe('Request body must be a JSON object');
    });
  });

  it('keeps the message short for thousands of unknown properties: the first few named, the rest counted', () => {
    const body: Record<string, unknown> = { id: 1, name: 'Fern' };
    for (let index = 0; index < 5_000; index++) {
      body[`unknown${index}`] = index;
    }

    const message = messageOf(body);

    expect(message).toBe(
      [0, 1, 2, 3, 4].map((index) => `property unknown${index} is not allowed`).join('; ') +
        '; and 4995 more',
    );
    expect(message.length).toBeLessThan(300);
  });

  it('counts broken rules past the first few too, and cuts a long unknown key', () => {
    const message = messageOf({ tag: '', ['k'.repeat(5_000)]: 1, b: 1, c: 1, d: 1 });

    expect(message).toBe(
      `property ${'k'.repeat(32)}… is not allowed; property b is not allowed; property c is not allowed; ` +
        'property d is not allowed; id is required; and 2 more',
    );
  });
});
