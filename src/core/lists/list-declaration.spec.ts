import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

import { defineList, type FilterOperator } from './list-declaration.js';
import { sortOrder } from './list-request.js';

@Entity({ name: 'spare_parts' })
class SparePart {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' })
  id!: string;

  @Column({ type: 'varchar', length: 40, collation: 'C' })
  name!: string;

  @Column({ type: 'varchar', length: 10, nullable: true })
  colour!: string | null;

  @Column({ type: 'integer' })
  stock!: number;

  @Column({ type: 'timestamptz' })
  madeAt!: Date;
}

@Entity({ name: 'labels' })
class Label {
  @PrimaryColumn({ type: 'varchar', length: 10 })
  code!: string;
}

describe('defineList', () => {
  it('reads each field from its TypeORM column, and names the parameters of its filters', () => {
    const list = defineList(SparePart, {
      sortable: ['name'],
      filterable: { name: ['eq', 'prefix'], colour: ['null'], stock: ['gt', 'in'] },
    });

    expect(list.alias).toBe('sparePart');
    expect(list.noun).toBe('spare parts');
    expect(list.sortable.map(({ property }) => property)).toStrictEqual(['name', 'id']);
    expect([...list.fields.values()]).toStrictEqual([
      { property: 'id', kind: 'int64', nullable: false, maxLength: 20, path: 'sparePart.id' },
      { property: 'name', kind: 'text', nullable: false, maxLength: 40, path: 'sparePart.name' },
      { property: 'colour', kind: 'text', nullable: true, maxLength: 10, path: 'sparePart.colour' },
      { property: 'stock', kind: 'int32', nullable: false, maxLength: 11, path: 'sparePart.stock' },
    ]);
    expect(list.filters.map(({ name }) => name)).toStrictEqual([
      'name',
      'name[prefix]',
      'colour[null]',
      'stock[gt]',
      'stock[in]',
    ]);
  });

  it.each<[string, Record<string, FilterOperator[]>, string]>([
    ['a prefix of a number', { stock: ['prefix'] }, 'SparePart.stock: prefix filters text'],
    ['a null filter on a column never null', { name: ['null'] }, 'SparePart.name: the column is never null'],
    ['an operator it does not know', { name: ['like' as FilterOperator] }, 'like is not a filter operator'],
    ['a column of a type it does not sort', { madeAt: ['eq'] }, 'bigint, integer and varchar(n) columns'],
    ['a property that is no column', { weight: ['eq'] }, 'weight is not a column'],
  ])('refuses %s when the application starts', (_case, filterable, message) => {
    expect(() => defineList(SparePart, { sortable: [], filterable })).toThrow(message);
  });

  it('refuses an entity whose id is not an integer', () => {
    expect(() => defineList(Label, { sortable: [], filterable: {} })).toThrow('must be an integer column');
  });
});

describe('sortOrder', () => {
  const list = defineList(SparePart, { sortable: ['name', 'colour'], filterable: {} });

  it.each([
    ['id', 'id', true],
    ['-id', '-id', false],
    ['name', 'name,id', false],
    ['-name', '-name,-id', false],
    ['-colour,name', '-colour,name,id', false],
    ['name,-id', 'name,-id', false],
  ])('reads %p as %p, the id last', (text, canonical, isDefault) => {
    expect(sortOrder(list, text)).toMatchObject({ text: canonical, isDefault });
  });

  it('keeps each sort it reads once', () => {
    expect(sortOrder(list, '-colour,name')).toBe(sortOrder(list, '-colour,name'));
  });
});
