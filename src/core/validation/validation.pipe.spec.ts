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

  it('needs a body where the route takes a DTO, and leaves a named parameter to its own pipe', async () => {
    await expect(refusal(pipe.transform(undefined, { type: 'body', metatype: GadgetDto }))).resolves.toBe(
      'A JSON request body is required',
    );
    await expect(pipe.transform('maybe', { type: 'query', metatype: Boolean, data: 'active' })).resolves.toBe(
      'maybe',
    );
  });
});
