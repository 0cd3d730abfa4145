import { isDatabaseUnavailableError } from '../database/database-errors.js';

/** A plant as the writer stores it: the id as exact decimal digits, no tag as null. */
export interface PlantRecord {
  readonly id: string;
  readonly name: string;
  readonly tag: string | null;
}

/** What happened to one create: stored now, or found stored already under its id. */
export interface WriteOutcome {
  readonly created: boolean;
  readonly stored: PlantRecord;
}

/** The part of pg's Pool the writer uses. */
export interface Queryable {
  query<Row>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
}

interface Pending {
  readonly plant: PlantRecord;
  readonly resolve: (outcome: WriteOutcome) => void;
  readonly reject: (error: unknown) => void;
  attempts: number;
}

interface ResultRow extends PlantRecord {
  readonly created: boolean;
}

/**
 * Inserts the batch, keeping the first plant of each id (by position), and
 * answers for every id of the batch: the row it inserted, or the row that was
 * there already. `ON CONFLICT DO NOTHING` lets PostgreSQL settle races with
 * other batches and other instances; no row is ever read before it is written.
 */
const INSERT_BATCH_SQL = `
  WITH input AS (
    SELECT id, name, tag, ord
    FROM unnest($1::bigint[], $2::text[], $3::text[]) WITH ORDINALITY AS input (id, name, tag, ord)
  ),
  inserted AS (
    INSERT INTO plants (id, name, tag)
    SELECT DISTINCT ON (id) id, name, tag FROM input ORDER BY id, ord
    ON CONFLICT (id) DO NOTHING
    RETURNING id, name, tag
  )
  SELECT id::text AS id, name, tag, true AS created FROM inserted
  UNION ALL
  SELECT plants.id::text, plants.name, plants.tag, false
  FROM plants
  WHERE plants.id = ANY ($1::bigint[]) AND NOT EXISTS (SELECT FROM inserted WHERE inserted.id = plants.id)`;

/**
 * A plant whose id conflicted with a row committed after the statement's
 * snapshot was taken is neither inserted nor seen; the next statement sees it.
 */
const MAX_ATTEMPTS = 3;

export interface PlantWriterOptions {
  /** Batches in flight at once; more requests wait and go together in the next batch. */
  readonly concurrency: number;
  /** Plants in one statement at most. */
  readonly maxBatchSize: number;
}

/**
 * Writes plants with natural batching: a create that finds a free slot is
 * sent at once, alone, so there is no timer and no added latency at low load;
 * creates that arrive while every slot is busy wait, and leave together in one
 * multi-row statement as soon as a slot frees up. Each statement commits
 * before any of its creates is answered, so nothing is acknowledged before it
 * is durable.
 *
 * One plant that PostgreSQL refuses must not fail the others: a batch that
 * fails for any reason other than the database being unavailable is split,
 * and its plants are written one by one.
 */
export class PlantWriter {
  private readonly queue: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly database: () => Queryable,
    private readonly options: PlantWriterOptions,
  ) {}

  write(plant: PlantRecord): Promise<WriteOutcome> {
    return new Promise<WriteOutcome>((resolve, reject) => {
      this.queue.push({ plant, resolve, reject, attempts: 0 });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0 && this.inFlight < this.options.concurrency) {
      const batch = this.queue.splice(0, this.options.maxBatchSize);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.dispatch();
      });
    }
  }

  private async run(batch: Pending[]): Promise<void> {
    let rows: ResultRow[];
    try {
      rows = await this.insert(batch);
    } catch (error) {
      if (batch.length > 1 && !isDatabaseUnavailableError(error)) {
        await Promise.all(batch.map((pending) => this.run([pending])));
      } else {
        batch.forEach((pending) => pending.reject(error));
      }
      return;
    }

    const stored = new Map(rows.map((row) => [row.id, row]));
    const insertedBy = new Map<string, Pending>();
    const unseen: Pending[] = [];
    for (const pending of batch) {
      const row = stored.get(pending.plant.id);
      if (!row) {
        unseen.push(pending);
        continue;
      }
      // The first plant of an id in the batch is the one the statement inserted.
      const created = row.created && !insertedBy.has(row.id);
      if (created) {
        insertedBy.set(row.id, pending);
      }
      pending.resolve({ created, stored: { id: row.id, name: row.name, tag: row.tag } });
    }
    this.retry(unseen);
  }

  private retry(unseen: Pending[]): void {
    for (const pending of unseen) {
      pending.attempts++;
      if (pending.attempts >= MAX_ATTEMPTS) {
        pending.reject(new Error(`Plant ${pending.plant.id} was neither inserted nor found`));
      }
    }
    const again = unseen.filter((pending) => pending.attempts < MAX_ATTEMPTS);
    if (again.length > 0) {
      this.queue.unshift(...again);
      this.dispatch();
    }
  }

  private async insert(batch: Pending[]): Promise<ResultRow[]> {
    const { rows } = await this.database().query<ResultRow>({
      name: 'plants-insert-batch',
      text: INSERT_BATCH_SQL,
      values: [
        batch.map(({ plant }) => plant.id),
        batch.map(({ plant }) => plant.name),
        batch.map(({ plant }) => plant.tag),
      ],
    });
    return rows;
  }
}
