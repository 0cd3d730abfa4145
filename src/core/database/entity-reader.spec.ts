import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, type DataSource } from 'typeorm';

import { EntityReader } from './entity-reader.js';
import type { Queryable } from './postgres-pool.js';
import { metadataDataSource } from './metadata-data-source.js';

@Entity({ name: 'things' })
@Index(['tag', 'id'])
@Index(['name'])
class Thing {
  @PrimaryColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 100, nullable: true })
  tag!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

type ThingRow = Pick<Thing, 'id' | 'name' | 'tag'>;

interface Call {
  readonly name: string;
  readonly values: unknown[];
  readonly answer: (rows: object[]) => void;
}

/** A pool that holds every statement until the test answers it. */
class HeldPool implements Queryable {
  readonly calls: Call[] = [];

  query<R>(config: { name?: string; values?: unknown[] }): Promise<{ rows: R[] }> {
    return new Promise((resolve) =>
      this.calls.push({
        name: config.name ?? '',
        values: config.values ?? [],
        answer: (rows) => resolve({ rows: rows as R[] }),
      }),
    );
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const thing = (id: string, tag: string | null = null): ThingRow => ({ id, name: `Thing ${id}`, tag });

describe('EntityReader', () => {
  let dataSource: DataSource;
  let pool: HeldPool;
  let reader: EntityReader<Thing, 'id' | 'name' | 'tag'>;

  beforeAll(async () => {
    dataSource = await metadataDataSource([Thing]);
  });

  beforeEach(() => {
    pool = new HeldPool();
    (dataSource.driver as unknown as { master: Queryable }).master = pool;
    reader = new EntityReader(dataSource, Thing);
  });

  it('builds every statement as it is made: by ids, and pages by each index that ends with the key', () => {
    expect(reader.statements.map(({ name }) => name.replace(/-[\w-]{16}$/, ''))).toStrictEqual([
      'things-by-ids',
      'things-pages',
      'things-pages-after',
      'things-pages-tag',
      'things-pages-tag-after',
    ]);
    expect(pool.calls).toHaveLength(0);
  });

  it('reads the record’s columns, from the entity’s metadata, bigint as text', () => {
    expect(reader.statements[0].text).toBe(
      'SELECT "id"::text AS "id", "name" AS "name", "tag" AS "tag"\nFROM "things"\nWHERE "id" = ANY ($1::bigint[])',
    );
  });

  it('answers reads by id that arrive together with one statement, each id once', async () => {
    const first = Array.from({ length: 4 }, (_, index) => reader.findById(String(index + 1)));
    const waiting = ['5', '6', '5', '404'].map((id) => reader.findById(id));
    expect(pool.calls.map((call) => call.values)).toStrictEqual([[['1']], [['2']], [['3']], [['4']]]);

    pool.calls[0].answer([thing('1')]);
    await tick();
    expect(pool.calls[4].values).toStrictEqual([['5', '6', '404']]);
    pool.calls[4].answer([thing('6'), thing('5')]);

    await expect(Promise.all(waiting)).resolves.toStrictEqual([
      thing('5'),
      thing('6'),
      thing('5'),
      undefined,
    ]);
    await expect(first[0]).resolves.toStrictEqual(thing('1'));
  });

  it('answers pages asked for together with one statement, each its own rows, without the page number', async () => {
    // Four pages of the kind take its four slots; the next ones wait for a slot, together.
    const first = Array.from({ length: 4 }, () => reader.page({ after: '0', limit: 1, where: { tag: 'z' } }));
    const unfiltered = reader.page({ limit: 1 });
    const pages = [
      reader.page({ after: '1', limit: 2, where: { tag: 'a' } }),
      reader.page({ after: '1', limit: 2, where: { tag: 'b' } }),
      reader.page({ after: '1', limit: 2, where: { tag: 'a' } }),
      reader.page({ after: '9', limit: 2, where: { tag: 'a' } }),
    ];
    // Another kind of page has slots of its own.
    expect(pool.calls.map((call) => call.name.replace(/-[\w-]{16}$/, ''))).toStrictEqual([
      ...Array.from({ length: 4 }, () => 'things-pages-tag-after'),
      'things-pages',
    ]);
    pool.calls[0].answer([]);
    await tick();

    expect(pool.calls[5].values).toStrictEqual([
      ['a', 'b', 'a'],
      ['1', '1', '9'],
      [2, 2, 2],
    ]);
    pool.calls[5].answer([
      { ...thing('2', 'a'), __page: 1 },
      { ...thing('4', 'a'), __page: 1 },
      { ...thing('3', 'b'), __page: 2 },
    ]);
    const answered = await Promise.all(pages);
    expect(answered).toStrictEqual([
      [thing('2', 'a'), thing('4', 'a')],
      [thing('3', 'b')],
      [thing('2', 'a'), thing('4', 'a')],
      [],
    ]);
    answered.flat().forEach((row) => expect(Object.keys(row)).toStrictEqual(['id', 'name', 'tag']));
    pool.calls.slice(1, 5).forEach((call) => call.answer([]));
    await expect(Promise.all([...first, unfiltered])).resolves.toStrictEqual([[], [], [], [], []]);
  });

  it('refuses a page filtered by columns no index (nor pageFilters) names', async () => {
    await expect(reader.page({ limit: 1, where: { name: 'x' } })).rejects.toThrow(
      'Thing: no page filters by name; give an index that leads with those columns and ends with the primary key, or name them in pageFilters',
    );
    expect(pool.calls).toHaveLength(0);
  });

  it('pages by the filters it is given, in place of the indexes’', () => {
    const byName = new EntityReader<Thing, 'id' | 'name'>(dataSource, Thing, {
      columns: ['id', 'name'],
      pageFilters: [['name']],
    });

    expect(byName.statements.map(({ name }) => name.replace(/-[\w-]{16}$/, ''))).toStrictEqual([
      'things-by-ids',
      'things-pages',
      'things-pages-after',
      'things-pages-name',
      'things-pages-name-after',
    ]);
  });

  it('must read the primary key', () => {
    expect(() => new EntityReader<Thing, 'name'>(dataSource, Thing, { columns: ['name'] })).toThrow(
      'Thing: EntityReader must read the primary key, id',
    );
  });
});
