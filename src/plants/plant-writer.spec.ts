import type { Queryable } from '../core/database/postgres-pool.js';
import { PlantWriter, type PlantRecord } from './plant-writer.js';

interface Call {
  readonly ids: string[];
  readonly finish: () => void;
  readonly fail: (error: unknown) => void;
  finished: boolean;
}

/**
 * A stand-in for PostgreSQL that applies the writer's two statements to a
 * table in memory, and holds every statement until the test lets it finish.
 */
class FakeDatabase implements Queryable {
  readonly table = new Map<string, PlantRecord>();
  readonly calls: Call[] = [];
  /** Ids whose row is deleted right after the next insert finds them taken. */
  readonly deletedAfterConflict = new Set<string>();
  /** A plant name PostgreSQL refuses (say, a constraint), failing its whole statement. */
  refusedName?: string;

  query<R>(config: { name?: string; values?: unknown[] }): Promise<{ rows: R[] }> {
    if (config.name === 'plants-select-stored') {
      const [ids] = config.values as [string[]];
      const rows = ids.flatMap((id) => (this.table.has(id) ? [this.table.get(id)!] : []));
      return Promise.resolve({ rows: rows as R[] });
    }
    const [ids, names, tags] = config.values as [string[], string[], (string | null)[]];
    return new Promise((resolve, reject) => {
      this.calls.push({
        ids,
        finished: false,
        fail: reject,
        finish: () => {
          if (names.includes(this.refusedName ?? '\u0000')) {
            reject(Object.assign(new Error('new row violates check constraint'), { code: '23514' }));
            return;
          }
          const inserted: Array<{ id: string }> = [];
          ids.forEach((id, index) => {
            if (!this.table.has(id)) {
              this.table.set(id, { id, name: names[index], tag: tags[index] });
              inserted.push({ id });
            } else if (this.deletedAfterConflict.delete(id)) {
              this.table.delete(id);
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
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private next(): Call | undefined {
    return this.calls.find((call) => !call.finished);
  }
}

const plant = (id: string, name = 'Fern', tag: string | null = null): PlantRecord => ({ id, name, tag });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('PlantWriter', () => {
  let database: FakeDatabase;
  let writer: PlantWriter;

  beforeEach(() => {
    database = new FakeDatabase();
    writer = new PlantWriter(() => database, { concurrency: 1, maxBatchSize: 100 });
  });

  it('sends a lone create at once, by itself: no timer, no waiting for company', async () => {
    const written = writer.write(plant('1'));

    expect(database.calls.map((call) => call.ids)).toStrictEqual([['1']]);
    await database.settle();
    await expect(written).resolves.toStrictEqual({ created: true, stored: plant('1') });
  });

  it('answers nobody before the statement has finished (committed)', async () => {
    let answered = false;
    void writer.write(plant('1')).then(() => (answered = true));
    await tick();

    expect(answered).toBe(false);
    await database.settle();
    expect(answered).toBe(true);
  });

  it('gathers the creates that arrive while a statement is in flight into the next one', async () => {
    const first = writer.write(plant('1'));
    const rest = ['2', '3', '4', '5'].map((id) => writer.write(plant(id)));

    expect(database.calls.map((call) => call.ids)).toStrictEqual([['1']]);
    await database.settle();

    expect(database.calls.map((call) => call.ids)).toStrictEqual([['1'], ['2', '3', '4', '5']]);
    await expect(Promise.all([first, ...rest])).resolves.toHaveLength(5);
    expect([...database.table.keys()]).toStrictEqual(['1', '2', '3', '4', '5']);
  });

  it('settles duplicates inside one batch: the first is stored, the others see it', async () => {
    void writer.write(plant('0'));
    // One plant per id reaches the database.
    const same = [
      writer.write(plant('7', 'Fern')),
      writer.write(plant('7', 'Fern')),
      writer.write(plant('7', 'Moss')),
    ];
    await database.settle();

    await expect(Promise.all(same)).resolves.toStrictEqual([
      { created: true, stored: plant('7', 'Fern') },
      { created: false, stored: plant('7', 'Fern') },
      { created: false, stored: plant('7', 'Fern') },
    ]);
    expect(database.calls.map((call) => call.ids)).toStrictEqual([['0'], ['7']]);
  });

  it('reads the stored plant of a taken id, and answers it', async () => {
    database.table.set('9', plant('9', 'Moss'));

    const written = writer.write(plant('9', 'Fern'));
    await database.settle();

    await expect(written).resolves.toStrictEqual({ created: false, stored: plant('9', 'Moss') });
  });

  it('writes again when the row of a taken id is deleted before it is read', async () => {
    database.table.set('9', plant('9', 'Moss'));
    database.deletedAfterConflict.add('9');

    const written = writer.write(plant('9', 'Fern'));
    await database.settle();

    await expect(written).resolves.toStrictEqual({ created: true, stored: plant('9', 'Fern') });
    expect(database.calls.map((call) => call.ids)).toStrictEqual([['9'], ['9']]);
  });

  it('keeps one refused plant from failing the others of its batch', async () => {
    database.refusedName = 'Broken';
    void writer.write(plant('0'));
    const outcomes = Promise.allSettled([
      writer.write(plant('1')),
      writer.write(plant('2', 'Broken')),
      writer.write(plant('3')),
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
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), {});
    void writer.write(plant('0'));
    const batch = [writer.write(plant('1')), writer.write(plant('2'))];
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
    writer = new PlantWriter(() => database, { concurrency: 2, maxBatchSize: 3 });
    const all = Array.from({ length: 10 }, (_, index) => writer.write(plant(String(index))));

    expect(database.calls.map((call) => call.ids)).toStrictEqual([['0'], ['1']]);
    await database.settle();
    await Promise.all(all);
    expect(Math.max(...database.calls.map((call) => call.ids.length))).toBe(3);
    expect(database.table.size).toBe(10);
  });
});
