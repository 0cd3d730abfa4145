import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { Type } from 'class-transformer';
import { getMetadataStorage, IsString, ValidateNested, validateSync } from 'class-validator';
import fc from 'fast-check';

import { ListPlantsQueryDto } from '../../plants/dto/list-plants.query.js';
import { NewPlantDto } from '../../plants/dto/new-plant.dto.js';
import { compileRuleCheck } from './rule-check.js';

/** Values of every JSON type, and the edges of each rule the DTOs use. */
const VALUES: unknown[] = [
  undefined,
  null,
  true,
  0,
  1,
  -1,
  100,
  101,
  1.5,
  Number.NaN,
  9007199254740993n,
  9223372036854775808n,
  -9223372036854775809n,
  '',
  ' ',
  'Fern',
  'x'.repeat(100),
  'x'.repeat(101),
  '😀'.repeat(100),
  'a\u0000b',
  '\ud800',
  [],
  {},
];

function instanceOf<T extends object>(type: new () => T, fields: Record<string, unknown>): T {
  return Object.assign(new type(), fields);
}

describe('compileRuleCheck', () => {
  it.each([
    ['NewPlantDto', NewPlantDto, ['id', 'name', 'tag']],
    ['ListPlantsQueryDto', ListPlantsQueryDto, ['limit', 'after', 'tag']],
  ] as const)('accepts exactly what validateSync accepts, for %s', (_name, type, properties) => {
    const check = compileRuleCheck(type)!;
    expect(check).toBeDefined();

    let accepted = 0;
    for (const [index, property] of properties.entries()) {
      for (const value of VALUES) {
        // One property varies, the others hold a valid value (or none, for the optional ones).
        const fields: Record<string, unknown> =
          type === NewPlantDto ? { id: 1, name: 'Fern' } : { limit: 20, after: 1n };
        fields[property] = value;
        const instance = instanceOf<object>(type, fields);

        const expected = validateSync(instance, { stopAtFirstError: true }).length === 0;
        expect({ property: properties[index], value, accepted: check(instance) }).toStrictEqual({
          property: properties[index],
          value,
          accepted: expected,
        });
        accepted += expected ? 1 : 0;
      }
    }
    // The corpus exercises both answers.
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(properties.length * VALUES.length);
  });

  it('checks nested DTOs with their own class’s rules, as validateSync does', () => {
    class Item {
      @IsString()
      readonly sku?: unknown;
    }
    class Order {
      @ValidateNested({ each: true })
      @Type(() => Item)
      readonly items?: unknown;
    }
    const check = compileRuleCheck(Order)!;
    const item = (sku: unknown) => Object.assign(new Item(), { sku });
    const cases = [[item('a')], [item('a'), item(1)], [], item('b'), item(2), 'x', [{ sku: 'a' }], null];

    for (const items of cases) {
      const order = Object.assign(new Order(), { items });
      expect({ items, accepted: check(order) }).toStrictEqual({
        items,
        accepted: validateSync(order, { forbidUnknownValues: true }).length === 0,
      });
    }
  });

  it('leaves classes with rules it does not know to validateSync', () => {
    class Each {
      @IsString({ each: true })
      readonly names?: string[];
    }

    expect(compileRuleCheck(Each)).toBeUndefined();
  });
});

describe('compileRuleCheck, on every DTO of every module', () => {
  it('accepts exactly what validateSync accepts, for any mix of values', async () => {
    const dtos = await everyDto();
    expect(dtos.length).toBeGreaterThanOrEqual(2);

    for (const dto of dtos) {
      const check = compileRuleCheck(dto);
      const properties = [
        ...new Set(
          getMetadataStorage()
            .getTargetValidationMetadatas(dto, '', true, false)
            .map((rule) => rule.propertyName),
        ),
      ];
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom(...VALUES), {
            minLength: properties.length,
            maxLength: properties.length,
          }),
          (values) => {
            const instance = Object.assign(
              new dto(),
              Object.fromEntries(properties.map((name, index) => [name, values[index]])),
            );
            const expected =
              validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: true }).length === 0;
            // No check at all means every instance goes to validateSync: never a wrong yes.
            return check === undefined || check(instance) === expected;
          },
        ),
        { numRuns: 300 },
      );
    }
  });
});

/** Every class of every `dto/` folder under src/, found by looking, so a new resource's DTOs are covered. */
async function everyDto(): Promise<Array<new () => object>> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const dtos: Array<new () => object> = [];
  for (const entry of entries) {
    if (
      entry.isFile() &&
      basename(entry.parentPath) === 'dto' &&
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.spec.ts')
    ) {
      const exported = (await import(pathToFileURL(join(entry.parentPath, entry.name)).href)) as Record<
        string,
        unknown
      >;
      for (const value of Object.values(exported)) {
        if (
          typeof value === 'function' &&
          getMetadataStorage().getTargetValidationMetadatas(value, '', true, false).length > 0
        ) {
          dtos.push(value as new () => object);
        }
      }
    }
  }
  return dtos;
}
