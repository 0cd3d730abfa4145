import { BadRequestException } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsString, Length, ValidateNested } from 'class-validator';

import { ApiValidationPipe } from './validation.pipe.js';

class PartDto {
  @IsString()
  @Length(1, 8)
  readonly sku!: string;
}

class GadgetDto {
  @IsString()
  readonly name!: string;

  @ValidateNested({ each: true })
  @Type(() => PartDto)
  readonly parts!: PartDto[];
}

class PageQueryDto {
  @IsInt()
  readonly limit!: number;
}

/** As the Nest docs' first DTO: a property typed, and no rule for it. */
class NoteDto {
  @IsString()
  readonly title!: string;

  text?: string;

  draft = false;
}

class LabelDto {
  @IsString()
  readonly name!: string;

  get shouted(): string {
    return this.name.toUpperCase();
  }

  describe(): string {
    return `label ${this.name}`;
  }
}

/** Every member an object inherits, from `toString` to `__proto__`, and `prototype`. */
const INHERITED_NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];

const pipe = new ApiValidationPipe();

async function refusal(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(BadRequestException);
  return (error as BadRequestException).message;
}

describe('ApiValidationPipe', () => {
  it('answers a DTO instance built from what was sent', async () => {
    const gadget = await pipe.transform(
      { name: 'g', parts: [{ sku: 'a' }] },
      { type: 'body', metatype: GadgetDto },
    );

    expect(gadget).toBeInstanceOf(GadgetDto);
    expect((gadget as GadgetDto).parts[0]).toBeInstanceOf(PartDto);
  });

  it('names each problem by its path, an undeclared property by where it came from', async () => {
    await expect(
      refusal(
        pipe.transform(
          { name: 'g', parts: [{ sku: '' }, { sku: 'b', colour: 1 }] },
          { type: 'body', metatype: GadgetDto },
        ),
      ),
    ).resolves.toBe(
      'parts[0].sku must be longer than or equal to 1 characters; property parts[1].colour is not allowed',
    );
    await expect(
      refusal(pipe.transform({ limit: 1, offset: 2 }, { type: 'query', metatype: PageQueryDto })),
    ).resolves.toBe('query parameter offset is not allowed');
  });

  it('names the first five problems and counts the rest', async () => {
    const body = { name: 'g', parts: [], a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 };

    await expect(refusal(pipe.transform(body, { type: 'body', metatype: GadgetDto }))).resolves.toBe(
      'property a is not allowed; property b is not allowed; property c is not allowed; ' +
        'property d is not allowed; property e is not allowed; and 2 more',
    );
  });

  describe('a key naming a member every object inherits', () => {
    it.each(INHERITED_NAMES)('%s is refused by name, in a body and in a query string', async (name) => {
      await expect(
        refusal(pipe.transform({ name: 'g', parts: [], [name]: 'x' }, { type: 'body', metatype: GadgetDto })),
      ).resolves.toBe(`property ${name} is not allowed`);
      await expect(
        refusal(
          pipe.transform(
            { name: 'g', parts: [{ sku: 'a' }, { sku: 'b', [name]: 1 }] },
            { type: 'body', metatype: GadgetDto },
          ),
        ),
      ).resolves.toBe(`property parts[1].${name} is not allowed`);
      // As a query string is parsed: an object without a prototype.
      const query = Object.assign(Object.create(null) as object, { limit: 1 });
      Object.defineProperty(query, name, {
        value: '1',
        enumerable: true,
        writable: true,
        configurable: true,
      });
      await expect(refusal(pipe.transform(query, { type: 'query', metatype: PageQueryDto }))).resolves.toBe(
        `query parameter ${name} is not allowed`,
      );
    });

    it('is named with every other problem, in an object no DTO describes too', async () => {
      await expect(
        refusal(
          pipe.transform(
            { name: { toString: 'g' }, parts: [], colour: 1, valueOf: 2 },
            { type: 'body', metatype: GadgetDto },
          ),
        ),
      ).resolves.toBe(
        'property colour is not allowed; name must be a string; property valueOf is not allowed; ' +
          'property name.toString is not allowed',
      );
    });

    it("as is one naming a DTO's own method or getter", async () => {
      await expect(
        refusal(
          pipe.transform({ name: 'a', describe: 'x', shouted: 'Y' }, { type: 'body', metatype: LabelDto }),
        ),
      ).resolves.toBe('property describe is not allowed; property shouted is not allowed');
    });
  });

  describe('a property declared without a rule', () => {
    it('is not taken for sent when it was not: {} and a body without it pass', async () => {
      const note = await pipe.transform({ title: 't' }, { type: 'body', metatype: NoteDto });

      expect(note).toBeInstanceOf(NoteDto);
      expect(note).toStrictEqual(Object.assign(new NoteDto(), { title: 't' }));
      expect(Object.keys(note as object)).toStrictEqual(['title', 'text', 'draft']);
    });

    it('is refused when sent, as an undeclared property: it has no rule to keep it', async () => {
      await expect(
        refusal(pipe.transform({ title: 't', text: 'x', draft: true }, { type: 'body', metatype: NoteDto })),
      ).resolves.toBe('property text is not allowed; property draft is not allowed');
    });
  });

  it('needs a body where the route takes a DTO, and leaves a named parameter to its own pipe', async () => {
    await expect(refusal(pipe.transform(undefined, { type: 'body', metatype: GadgetDto }))).resolves.toBe(
      'A JSON request body is required',
    );
    await expect(pipe.transform('maybe', { type: 'query', metatype: Boolean, data: 'active' })).resolves.toBe(
      'maybe',
    );
  });
});
