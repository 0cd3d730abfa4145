import { Column, CreateDateColumn, Entity, PrimaryColumn, type DataSource } from 'typeorm';

import type { WebhookConfig } from '../config/webhook.config.js';
import { WebhookOutbox } from '../webhooks/webhook-outbox.js';
import { EntityWriter, type EntityWriterOptions, type WriterEvents } from './entity-writer.js';
import type { Queryable } from './postgres-pool.js';
import { metadataDataSource } from './metadata-data-source.js';

@Entity({ name: 'things' })
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

@Entity({ name: 'kits' })
class Kit {
  @PrimaryColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'jsonb' })
  parts!: Array<{ sku: string; quantity: number }>;
}

type ThingRow = Pick<Thing, 'id' | 'name' | 'tag'>;
type ThingWriter = EntityWriter<Thing, 'id' | 'name' | 'tag'>;

interface Call {
  readonly name: string;
  readonly values: unknown[];
  readonly ids: string[];
  readonly finish: () => void;
  readonly fail: (error: unknown) => void;
  finished: boolean;
}

/**
 * A stand-in for PostgreSQL that applies the writer's statements to a table
 * in memory, and holds every insert until the test lets it finish.
 */
class FakeDatabase implements Queryable {
  readonly table = new Map<string, ThingRow>();
  readonly calls: Call[] = [];
  /** Ids whose row is deleted right after an insert finds them taken, as often as listed. */
  readonly deletedAfterConflict: string[] = [];
  /** Ids that another writer holds at every insert, and has deleted again by every read. */
  readonly vanishing = new Set<string>();
  /** A name PostgreSQL refuses (say, a constraint), failing its whole statement. */
  refusedName?: string;

  query<R>(config: { name?: string; values?: unknown[] }): Promise<{ rows: R[] }> {
    const name = config.name ?? '';
    const values = config.values ?? [];
    if (name.startsWith('things-select-stored-')) {
      const [ids] = values as [string[]];
      const rows = ids.flatMap((id) => (this.table.has(id) ? [this.table.get(id)!] : []));
      return Promise.resolve({ rows: rows as R[] });
    }
    const [ids, names, tags] = values as [string[], string[], Array<string | null>];
    return new Promise((resolve, reject) => {
      this.calls.push({
        name,
        values,
        ids,
        finished: false,
        fail: reject,
        finish: () => {
          if (names.includes(this.refusedName ?? '\u0000')) {
            reject(Object.assign(new Error('new row violates check constraint'), { code: '23514' }));
            return;
          }
          const inserted: Array<{ key: string }> = [];
          ids.forEach((id, index) => {
            if (this.vanishing.has(id)) {
              return;
            }
            if (!this.table.has(id)) {
              this.table.set(id, { id, name: names[index], tag: tags[index] });
              inserted.push({ key: id });
            } else {
              const deleted = this.deletedAfterConflict.indexOf(id);
              if (deleted >= 0) {
                this.deletedAfterConflict.splice(deleted, 1);
                this.table.delete(id);
              }
            }
          });
          resolve({ rows: inserted as R[] });
        },
      });
    });
  }

  /** Lets every statement sent so far finish, and those they trigger, until none is left. */
  async settle(): Promise<void> {
    for (let call = this.next(); call; call = this.next()) {
      call.finished = true;
      call.finish();
      await tick();
    }
  }

  private next(): Call | undefined {
    return this.calls.find((call) => !call.finished);
  }
}

const thing = (id: string, name = 'Fern', tag: string | null = null): ThingRow => ({ id, name, tag });
const tick = () => new Promise((resolve) => setImmediate(resolve));

function usePool(dataSource: DataSource, pool: Queryable): void {
  (dataSource.driver as unknown as { master: Queryable }).master = pool;
}

describe('EntityWriter', () => {
  let dataSource: DataSource;
  let database: FakeDatabase;
  let writer: ThingWriter;

  const writerOf = (
    options: Partial<EntityWriterOptions<Thing, 'id' | 'name' | 'tag'>> = {},
    events?: WriterEvents,
  ): ThingWriter =>
    new EntityWriter<Thing, 'id' | 'name' | 'tag'>(
      dataSource,
      Thing,
      { concurrency: 1, maxBatchSize: 100, ...options },
      events,
    );

  beforeAll(async () => {
    dataSource = await metadataDataSource([Thing, Kit]);
  });

  beforeEach(() => {
    database = new FakeDatabase();
    usePool(dataSource, database);
    writer = writerOf();
  });

  it('sends a lone create at once, by itself: no timer, no waiting for company', async () => {
    const written = writer.write(thing('1'));

    expect(database.calls.map((call) => call.ids)).toStrictEqual([['1']]);
    await database.settle();
    await expect(written).resolves.toStrictEqual({ created: true, stored: thing('1') });
  });

  it('writes the record’s columns, from the entity’s metadata: not those TypeORM fills itself', () => {
    void writer.write(thing('1', 'Fern', 'pteridophyte'));

    expect(database.calls[0].values).toStrictEqual([['1'], ['Fern'], ['pteridophyte']]);
    expect(writer.statements.map(({ text }) => text).join('\n')).not.toContain('created_at');
  });

  it('answers nobody before the statement has finished (committed)', async () => {
    let answered = false;
    void writer.write(thing('1')).then(() => (answered = true));
    await tick();

    expect(answered).toBe(false);
    await database.settle();
    expect(answered).toBe(true);
  });

  it('gathers the creates that arrive while a statement is in flight into the next one', async () => {
    const first = writer.write(thing('1'));
    const rest = ['2', '3', '4', '5'].map((id) => writer.write(thing(id)));

    expect(database.calls.map((call) => call.ids)).toStrictEqual([['1']]);
    await database.settle();

    expect(database.calls.map((call) => call.ids)).toStrictEqual([['1'], ['2', '3', '4', '5']]);
    await expect(Promise.all([first, ...rest])).resolves.toHaveLength(5);
    expect([...database.table.keys()]).toStrictEqual(['1', '2', '3', '4', '5']);
  });

  it('settles duplicates inside one batch: the first is stored, the others see it', async () => {
    void writer.write(thing('0'));
    // One row per id reaches the database.
    const same = [
      writer.write(thing('7', 'Fern')),
      writer.write(thing('7', 'Fern')),
      writer.write(thing('7', 'Moss')),
    ];
    await database.settle();

    await expect(Promise.all(same)).resolves.toStrictEqual([
      { created: true, stored: thing('7', 'Fern') },
      { created: false, stored: thing('7', 'Fern') },
      { created: false, stored: thing('7', 'Fern') },
    ]);
    expect(database.calls.map((call) => call.ids)).toStrictEqual([['0'], ['7']]);
  });

  it('reads the stored row of a taken id, and answers it', async () => {
    database.table.set('9', thing('9', 'Moss'));

    const written = writer.write(thing('9', 'Fern'));
    await database.settle();

    await expect(written).resolves.toStrictEqual({ created: false, stored: thing('9', 'Moss') });
  });

  it('writes again when the row of a taken id is deleted before it is read', async () => {
    database.table.set('9', thing('9', 'Moss'));
    database.deletedAfterConflict.push('9');

    const written = writer.write(thing('9', 'Fern'));
    await database.settle();

    await expect(written).resolves.toStrictEqual({ created: true, stored: thing('9', 'Fern') });
    expect(database.calls.map((call) => call.ids)).toStrictEqual([['9'], ['9']]);
  });

  it('gives up on a row neither inserted nor found after a few tries, and on that row alone', async () => {
    database.vanishing.add('9');
    void writer.write(thing('0'));
    const outcomes = Promise.allSettled([writer.write(thing('9')), writer.write(thing('1'))]);
    await database.settle();

    expect(await outcomes).toStrictEqual([
      { status: 'rejected', reason: new Error('Thing 9 was neither inserted nor found') },
      { status: 'fulfilled', value: { created: true, stored: thing('1') } },
    ]);
    expect(database.calls.map((call) => call.ids)).toStrictEqual([['0'], ['9', '1'], ['9'], ['9']]);
  });

  it('keeps one refused row from failing the others of its batch', async () => {
    database.refusedName = 'Broken';
    void writer.write(thing('0'));
    const outcomes = Promise.allSettled([
      writer.write(thing('1')),
      writer.write(thing('2', 'Broken')),
      writer.write(thing('3')),
    ]);
    await database.settle();

    expect((await outcomes).map((outcome) => outcome.status)).toStrictEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect([...database.table.keys()].sort()).toStrictEqual(['0', '1', '3']);
  });

  it('gives every create of a batch the failure when the database goes away mid-statement', async () => {
    const lost = new Error('Connection terminated unexpectedly');
    void writer.write(thing('0'));
    const batch = [writer.write(thing('1')), writer.write(thing('2'))];
    database.calls[0].finished = true;
    database.calls[0].finish();
    await tick();

    database.calls[1].fail(lost);
    const outcomes = await Promise.allSettled(batch);
    expect(outcomes).toStrictEqual([
      { status: 'rejected', reason: lost },
      { status: 'rejected', reason: lost },
    ]);
    // Not split into one-by-one retries: the database is gone for all of them.
    expect(database.calls).toHaveLength(2);
  });

  it('keeps no more statements in flight than it is allowed', async () => {
    writer = writerOf({ concurrency: 2, maxBatchSize: 3 });
    const all = Array.from({ length: 10 }, (_, index) => writer.write(thing(String(index))));

    expect(database.calls.map((call) => call.ids)).toStrictEqual([['0'], ['1']]);
    await database.settle();
    await Promise.all(all);
    expect(Math.max(...database.calls.map((call) => call.ids.length))).toBe(3);
    expect(database.table.size).toBe(10);
  });

  describe('announcing what it creates', () => {
    function events(urls: string[]) {
      let nudges = 0;
      const outbox = new WebhookOutbox({ urls } as unknown as WebhookConfig);
      return { events: { outbox, dispatcher: { nudge: () => nudges++ } }, nudges: () => nudges };
    }

    it('records the events in the insert itself, then the subscribers and each row’s trace context, and nudges once a batch', async () => {
      const subscribers = events(['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b']);
      writer = writerOf({ created: { event: 'thing.created' } }, subscribers.events);

      void writer.write(thing('0'));
      const batch = [writer.write(thing('1')), writer.write(thing('2'))];
      await database.settle();
      await Promise.all(batch);

      expect(database.calls.map((call) => call.name)).toStrictEqual([
        expect.stringMatching(/^things-insert-batch-with-events-/),
        expect.stringMatching(/^things-insert-batch-with-events-/),
      ]);
      expect(database.calls[1].values).toStrictEqual([
        ['1', '2'],
        ['Fern', 'Fern'],
        [null, null],
        ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'],
        // No trace context without tracing: the events carry none.
        [null, null],
      ]);
      expect(subscribers.nudges()).toBe(2);
    });

    it('does not nudge the dispatcher for a batch that inserted nothing', async () => {
      const subscribers = events(['http://127.0.0.1:9/a']);
      writer = writerOf({ created: { event: 'thing.created' } }, subscribers.events);
      database.table.set('1', thing('1'));

      await Promise.all([writer.write(thing('1')), database.settle()]);

      expect(subscribers.nudges()).toBe(0);
    });

    it('runs the plain insert, and nudges nobody, when there is no subscriber', async () => {
      const none = events([]);
      writer = writerOf({ created: { event: 'thing.created' } }, none.events);

      await Promise.all([writer.write(thing('1')), database.settle()]);

      expect(database.calls.map((call) => call.name)).toStrictEqual([
        expect.stringMatching(/^things-insert-batch-(?!with-events)/),
      ]);
      expect(database.calls[0].values).toHaveLength(3);
      expect(none.nudges()).toBe(0);
    });

    it('puts the chosen properties in the payload, the written ones by default', () => {
      const payloadOf = (created: { event: string; payload?: Array<'id' | 'name' | 'tag'> }) =>
        /json_build_object\((.*)\)\)::text/.exec(
          writerOf({ created }, events([]).events)
            .statements.map(({ text }) => text)
            .join('\n'),
        )?.[1];

      expect(payloadOf({ event: 'thing.created' })).toBe(`'id', "id", 'name', "name", 'tag', "tag"`);
      expect(payloadOf({ event: 'thing.created', payload: ['id'] })).toBe(`'id', "id"`);
    });

    it('refuses to announce without the outbox, or under a name that is not an event type', () => {
      expect(() => writerOf({ created: { event: 'thing.created' } })).toThrow(
        'Thing: announcing thing.created needs the webhook outbox',
      );
      expect(() => writerOf({ created: { event: 'Thing Created' } }, events([]).events)).toThrow(TypeError);
    });
  });

  it('writes JSON columns as their JSON text, which PostgreSQL casts', async () => {
    const sent: unknown[][] = [];
    usePool(dataSource, {
      query: <R>(config: { values?: unknown[] }) => {
        sent.push(config.values ?? []);
        return Promise.resolve({ rows: [{ key: '1' }] as R[] });
      },
    });
    const kits = new EntityWriter<Kit, 'id' | 'parts'>(dataSource, Kit, { concurrency: 1, maxBatchSize: 10 });
    const parts = [{ sku: 'COG-12', quantity: 2 }];

    await expect(kits.write({ id: '1', parts })).resolves.toStrictEqual({
      created: true,
      stored: { id: '1', parts },
    });
    expect(sent).toStrictEqual([[['1'], ['[{"sku":"COG-12","quantity":2}]']]]);
    expect(kits.statements[0].text).toContain('unnest($1::bigint[], $2::jsonb[])');
  });

  it('must write the primary key', () => {
    expect(() => writerOf({ columns: ['name', 'tag'] })).toThrow(
      'Thing: EntityWriter must write the primary key, id',
    );
  });
});
