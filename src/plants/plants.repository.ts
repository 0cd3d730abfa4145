import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Context } from '@opentelemetry/api';
import { type EntityManager, In, Repository } from 'typeorm';

import { isDatabaseUnavailableError } from '../core/database/database-errors.js';
import { deleteIfMatch, type WritePrecondition } from '../core/database/if-match.js';
import { ReadReplicas } from '../core/database/read-replicas.js';
import { PreconditionFailedError } from '../core/errors/domain-error.js';
import { WebhookOutbox } from '../core/webhooks/webhook-outbox.js';
import { BatchLoader } from './batch-loader.js';
import { Plant } from './plant.entity.js';
import { plantView } from './plant.view.js';

/** A plant as stored and read: its id as exact decimal digits. */
export interface PlantRecord {
  readonly id: string;
  readonly name: string;
  readonly tag: string | null;
}

/** A stored plant and its version (its ETag). */
export interface StoredPlant extends PlantRecord {
  readonly version: number;
}

/** What a create found: its plant stored now, or the plant its id held already. */
export interface CreateOutcome {
  readonly created: boolean;
  readonly stored: PlantRecord;
}

/** The changes of a merge patch: a property left out stays as it is, a `null` tag removes it. */
export interface PlantChanges {
  readonly name?: string;
  readonly tag?: string | null;
}

export interface PageQuery {
  /** Only plants whose id is greater (exact decimal digits). */
  readonly after?: string;
  readonly tag?: string;
  readonly limit: number;
}

/**
 * Statements in flight at once for each kind of batch (fewer make larger
 * batches and less work per request), and keys in one at most. A batch that
 * finds the database unavailable fails the keys waiting for it too.
 */
const READS = { inFlight: 4, maxBatchSize: 256, unavailable: isDatabaseUnavailableError };
const WRITES = { inFlight: 2, maxBatchSize: 256, unavailable: isDatabaseUnavailableError };

/**
 * The plants' reads and writes. The four busiest paths (reads by id, pages,
 * creates, patches) are each batched (`BatchLoader`, DataLoader's idea): the requests that arrive
 * while earlier statements are out leave together in one statement, since on
 * these paths the round trip to PostgreSQL, not the statement, is what costs
 * (docs/performance.md#batched-reads-and-writes). Reads by id and pages may go
 * to a replica. A change records its webhook events in the same transaction.
 *
 * Each batch is one statement written out below, run with TypeORM's
 * `manager.query()`: TypeORM's query builder cannot say some of them (a
 * keyset scan per page, one `UPDATE` for many rows), and building the others
 * with it costs more than the statement on these routes.
 */
@Injectable()
export class PlantsRepository {
  private readonly byId = new BatchLoader<string, StoredPlant | null>((ids) => this.findByIds(ids), {
    ...READS,
    span: 'plants batch read',
  });
  private readonly pageLoaders = new Map<string, BatchLoader<PageStart, PlantRecord[]>>();
  private readonly creates = new BatchLoader<PlantRecord, CreateOutcome>(
    (plants, callers) => this.createAll(plants, callers),
    { ...WRITES, span: 'plants batch insert' },
  );
  private readonly updates = new BatchLoader<PendingUpdate, StoredPlant | null>(
    (updates, callers) => this.updateAll(updates, callers),
    { ...WRITES, span: 'plants batch update' },
  );

  constructor(
    @InjectRepository(Plant) private readonly plants: Repository<Plant>,
    private readonly replicas: ReadReplicas,
    private readonly outbox: WebhookOutbox,
  ) {}

  /** The plant under this id, with its version; null when there is none. */
  findById(id: string): Promise<StoredPlant | null> {
    return this.byId.load(id);
  }

  /** Up to `limit` plants in id order after `after`, with the tag when one is given. */
  page(query: PageQuery): Promise<PlantRecord[]> {
    const kind = `${query.tag === undefined ? 'all' : 'tag'} ${query.after === undefined ? 'first' : 'after'} ${query.limit}`;
    let loader = this.pageLoaders.get(kind);
    if (!loader) {
      const statement = pagesSql(query.tag !== undefined, query.after !== undefined);
      loader = new BatchLoader((starts) => this.findPages(statement, query.limit, starts), {
        ...READS,
        span: 'plants batch page',
      });
      this.pageLoaders.set(kind, loader);
    }
    return loader.load({ after: query.after ?? null, tag: query.tag ?? null });
  }

  /**
   * Stores the plant unless its id is taken, and says which: answered once
   * its statement, and its `plant.created` event, have committed.
   */
  create(plant: PlantRecord): Promise<CreateOutcome> {
    return this.creates.load(plant);
  }

  /**
   * Applies the changes if the plant is at one of the precondition's versions
   * (any, without one), adding one to its version and recording
   * `plant.updated`; answers the plant as it is now, or null when there is
   * none. A plant at another version throws `PreconditionFailedError`. No
   * changes change nothing, not even the version: the plant is read, from the
   * primary, and the precondition checked.
   */
  async update(
    id: string,
    changes: PlantChanges,
    precondition?: WritePrecondition,
  ): Promise<StoredPlant | null> {
    if (changes.name !== undefined || changes.tag !== undefined) {
      return this.updates.load({ id, changes, precondition });
    }
    const [plant] = await this.plants.manager.query<StoredPlant[]>(BY_IDS_SQL, [[id]]);
    if (plant && precondition && !precondition.versions.includes(plant.version)) {
      throw new PreconditionFailedError();
    }
    return plant ?? null;
  }

  /**
   * Deletes the plant if it is at one of the precondition's versions (any,
   * without one), recording `plant.deleted`; false when there was none. A
   * plant at another version throws `PreconditionFailedError`.
   */
  remove(id: string, precondition?: WritePrecondition): Promise<boolean> {
    return this.write(async (manager) => {
      const plant = await deleteIfMatch(manager, Plant, { id }, precondition);
      if (plant) {
        await this.outbox.enqueue(manager, 'plant.deleted', { id: plantView(plant).id });
      }
      return plant !== null;
    });
  }

  private async findByIds(ids: readonly string[]): Promise<Array<StoredPlant | null>> {
    const rows = await this.replicas.read((manager) => manager.query<StoredPlant[]>(BY_IDS_SQL, [ids]));
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** The pages of one kind: one statement, a keyset scan per page, all in the same snapshot. */
  private async findPages(statement: string, limit: number, starts: readonly PageStart[]) {
    const rows = await this.replicas.read((manager) =>
      manager.query<Array<PlantRecord & { page: string }>>(statement, [
        starts.map(({ after }) => after),
        starts.map(({ tag }) => tag),
        limit,
      ]),
    );
    const pages = starts.map((): PlantRecord[] => []);
    for (const { page, id, name, tag } of rows) {
      pages[Number(page) - 1].push({ id, name, tag });
    }
    return pages;
  }

  /**
   * A batch of creates; when it fails for another reason than the database
   * being unavailable, each create is tried alone, so that one plant the
   * database refuses does not fail the others.
   */
  private async createAll(
    plants: readonly PlantRecord[],
    callers: readonly Context[],
  ): Promise<Array<CreateOutcome | Error>> {
    try {
      return await this.write((manager) => this.insert(manager, plants, callers));
    } catch (error) {
      if (plants.length === 1 || isDatabaseUnavailableError(error)) {
        throw error;
      }
      return Promise.all(
        plants.map((plant, index) =>
          this.write((manager) => this.insert(manager, [plant], [callers[index]])).then(
            ([outcome]) => outcome,
            (failure: Error) => failure,
          ),
        ),
      );
    }
  }

  /**
   * Inserts the plants whose ids are free (`ON CONFLICT DO NOTHING`: the
   * database settles races with other batches and instances) and records
   * their events; a plant whose id is taken is answered with the plant stored
   * under it, which the service compares with its own. An id found taken
   * whose plant is gone when read (deleted in between) is tried again.
   */
  private async insert(
    manager: EntityManager,
    plants: readonly PlantRecord[],
    callers: readonly Context[],
  ): Promise<CreateOutcome[]> {
    const outcomes = new Array<CreateOutcome>(plants.length);
    let waiting = plants.map((_, index) => index);
    while (waiting.length > 0) {
      const first = new Map<string, number>();
      for (const index of waiting) {
        if (!first.has(plants[index].id)) {
          first.set(plants[index].id, index);
        }
      }
      const sent = [...first.values()].map((index) => plants[index]);
      const rows = await manager.query<Array<{ id: string }>>(INSERT_SQL, [
        sent.map(({ id }) => id),
        sent.map(({ name }) => name),
        sent.map(({ tag }) => tag),
      ]);
      const inserted = new Set(rows.map((row) => row.id));
      await this.outbox.enqueueAll(
        manager,
        [...inserted].map((id) => {
          const index = first.get(id)!;
          return { type: 'plant.created', payload: plantView(plants[index]), context: callers[index] };
        }),
      );
      const taken = [...first.keys()].filter((id) => !inserted.has(id));
      const stored = new Map<string, PlantRecord>(
        taken.length === 0
          ? []
          : (
              await manager.find(Plant, {
                select: { id: true, name: true, tag: true },
                where: { id: In(taken) },
              })
            ).map((row) => [row.id, row]),
      );
      const again: number[] = [];
      for (const index of waiting) {
        const { id } = plants[index];
        const winner = first.get(id)!;
        if (inserted.has(id)) {
          outcomes[index] = { created: winner === index, stored: plants[winner] };
        } else if (stored.has(id)) {
          outcomes[index] = { created: false, stored: stored.get(id)! };
        } else {
          again.push(index);
        }
      }
      waiting = again;
    }
    return outcomes;
  }

  /**
   * A batch of patches: one statement changes the plants at once, so the
   * ids of one statement must differ (an `UPDATE … FROM` changes a row once);
   * a second patch of a plant goes in the next, and sees the first's version.
   */
  private async updateAll(
    batch: readonly PendingUpdate[],
    callers: readonly Context[],
  ): Promise<Array<StoredPlant | null | Error>> {
    const outcomes = new Array<StoredPlant | null | Error>(batch.length);
    let waiting = batch.map((_, index) => index);
    while (waiting.length > 0) {
      const ids = new Set<string>();
      const now: number[] = [];
      const later: number[] = [];
      for (const index of waiting) {
        (ids.has(batch[index].id) ? later : now).push(index);
        ids.add(batch[index].id);
      }
      const answers = await this.write((manager) =>
        this.updateRows(
          manager,
          now.map((index) => batch[index]),
          now.map((index) => callers[index]),
        ),
      );
      now.forEach((index, position) => (outcomes[index] = answers[position]));
      waiting = later;
    }
    return outcomes;
  }

  /**
   * The version is checked in the `UPDATE`'s own `WHERE`, which PostgreSQL
   * evaluates again on a row it had to wait for, so two patches with the same
   * `If-Match` cannot both win; the statement's snapshot tells a missing
   * plant (null) from one at another version (412).
   */
  private async updateRows(
    manager: EntityManager,
    batch: readonly PendingUpdate[],
    callers: readonly Context[],
  ) {
    const rows = await manager.query<Array<PlantRecord & { version: number | null; found: boolean | null }>>(
      UPDATE_SQL,
      [
        batch.map(({ id }) => id),
        batch.map(({ precondition }) => (precondition ? `{${precondition.versions.join(',')}}` : null)),
        batch.map(({ changes }) => changes.name !== undefined),
        batch.map(({ changes }) => changes.name ?? null),
        batch.map(({ changes }) => changes.tag !== undefined),
        batch.map(({ changes }) => changes.tag ?? null),
      ],
    );
    await this.outbox.enqueueAll(
      manager,
      rows.flatMap((row, index) =>
        row.version === null
          ? []
          : [{ type: 'plant.updated', payload: plantView(row), context: callers[index] }],
      ),
    );
    return rows.map(({ id, name, tag, version, found }): StoredPlant | null | Error => {
      if (version === null) {
        return found ? new PreconditionFailedError() : null;
      }
      return { id, name, tag, version };
    });
  }

  /** One statement needs no transaction of its own; with webhook subscribers, its events share one with it. */
  private write<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.outbox.hasSubscribers ? this.plants.manager.transaction(work) : work(this.plants.manager);
  }
}

interface PageStart {
  readonly after: string | null;
  readonly tag: string | null;
}

interface PendingUpdate {
  readonly id: string;
  readonly changes: PlantChanges;
  readonly precondition?: WritePrecondition;
}

/** The plants under these ids (`$1`), with their versions. */
const BY_IDS_SQL = `SELECT id, name, tag, version FROM plants WHERE id = ANY ($1::bigint[])`;

/** Inserts the plants whose ids are free: `$1` the ids, `$2` the names, `$3` the tags; answers the ids inserted. */
const INSERT_SQL = `
  INSERT INTO plants (id, name, tag)
  SELECT * FROM unnest($1::bigint[], $2::varchar[], $3::varchar[])
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;

/**
 * Pages of one kind: `$1` each page's `after`, `$2` its tag, `$3` the limit
 * they share (a parameter the planner sees, so that it costs each scan as
 * the few rows it is). The (tag, id) index serves a tag's pages.
 */
function pagesSql(tagged: boolean, after: boolean): string {
  const conditions = [
    ...(tagged ? ['plant.tag = start.tag'] : []),
    ...(after ? ['plant.id > start.after'] : []),
  ];
  return `
    SELECT plant.id, plant.name, plant.tag, start.page
    FROM unnest($1::bigint[], $2::varchar[]) WITH ORDINALITY AS start (after, tag, page)
    CROSS JOIN LATERAL (
      SELECT plant.id, plant.name, plant.tag FROM plants plant
      ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
      ORDER BY plant.id
      LIMIT $3
    ) AS plant
    ORDER BY start.page, plant.id`;
}

/**
 * Patches, a row per plant: `$1` the ids, `$2` the versions each may be at
 * (an array's text, null for any), then for the name and the tag whether
 * to set it and its value. A row per id, in order: the plant changed, or
 * (version null) whether it was there at all.
 */
const UPDATE_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::boolean[], $4::varchar[], $5::boolean[], $6::varchar[])
      WITH ORDINALITY AS input (id, if_versions, set_name, name, set_tag, tag, position)
  ),
  changed AS (
    UPDATE plants AS plant
    SET name = CASE WHEN input.set_name THEN input.name ELSE plant.name END,
        tag = CASE WHEN input.set_tag THEN input.tag ELSE plant.tag END,
        version = plant.version + 1
    FROM input
    WHERE plant.id = input.id
      AND (input.if_versions IS NULL OR plant.version = ANY (input.if_versions::integer[]))
    RETURNING plant.id, plant.name, plant.tag, plant.version
  )
  SELECT input.id, changed.name, changed.tag, changed.version,
    CASE WHEN changed.id IS NULL THEN EXISTS (SELECT FROM plants WHERE plants.id = input.id) END AS found
  FROM input
  LEFT JOIN changed ON changed.id = input.id
  ORDER BY input.position`;
