import { BadRequestException } from '@nestjs/common';

import { NewPlantDto } from '../../plants/dto/new-plant.dto.js';
import { StrictValidationPipe } from './strict-validation.pipe.js';

describe('StrictValidationPipe', () => {
  const pipe = new StrictValidationPipe();
  const validate = (value: unknown) => pipe.transform(value, { type: 'custom', metatype: NewPlantDto });
  const messageOf = (value: unknown): string => {
    try {
      validate(value);
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
});
