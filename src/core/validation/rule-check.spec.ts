import { IsString, ValidateNested, validateSync } from 'class-validator';

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

  it('leaves classes with rules it does not know to validateSync', () => {
    class Nested {
      @ValidateNested()
      readonly child?: object;
    }
    class Each {
      @IsString({ each: true })
      readonly names?: string[];
    }

    expect(compileRuleCheck(Nested)).toBeUndefined();
    expect(compileRuleCheck(Each)).toBeUndefined();
  });
});
