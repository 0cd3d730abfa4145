import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Context } from '@opentelemetry/api';
import { type EntityManager, In, Repository } from 'typeorm';

import { isDatabaseUnavailableError } from '../core/database/database-errors.js';
import { deleteIfMatch, type IfMatch } from '../core/database/if-match.js';
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

/** Fewer batches in flight make larger ones; one that finds the database unavailable fails those waiting. */
const READS = { inFlight: 4, maxBatchSize: 256, unavailable: isDatabaseUnavailableError };
const WRITES = { inFlight: 2, maxBatchSize: 256, unavailable: isDatabaseUnavailableError };

/**
 * The plants' reads and writes. Reads by id, pages, creates and patches are batched (`BatchLoader`,
 * DataLoader's idea), because on these paths the round trip to PostgreSQL costs more than the
 * statement (docs/performance.md#batched-reads-and-writes-of-plants). Each batch is one hand-written
 * statement: the query builder cannot say a keyset scan per page or one `UPDATE` for many rows.
 * Reads may go to a replica; a change records its webhook events in the same transaction.
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

  findById(id: string): Promise<StoredPlant | null> {
    return this.byId.load(id);
  }

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

  /** Stores the plant unless its id is taken; resolves once it and its `plant.created` event commit. */
  create(plant: PlantRecord): Promise<CreateOutcome> {
    return this.creates.load(plant);
  }

  /** Empty changes leave even the version alone: the plant is only read, from the primary, and checked. */
  async update(id: string, changes: PlantChanges, ifMatch?: IfMatch): Promise<StoredPlant | null> {
    if (changes.name !== undefined || changes.tag !== undefined) {
      return this.updates.load({ id, changes, ifMatch });
    }
    const [plant] = await this.plants.manager.query<StoredPlant[]>(BY_IDS_SQL, [[id]]);
    if (plant && ifMatch && !ifMatch.versions.includes(plant.version)) {
      throw new PreconditionFailedError();
    }
    return plant ?? null;
  }

  /** Deletes the plant if it is at one of the versions `If-Match` names, recording `plant.deleted`. */
  remove(id: string, ifMatch?: IfMatch): Promise<boolean> {
    return this.write(async (manager) => {
      const plant = await deleteIfMatch(manager, Plant, { id }, ifMatch);
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

  /** A failed batch is tried one create at a time, so that one refused plant does not fail the others. */
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
   * `ON CONFLICT DO NOTHING` lets the database settle races with other batches and instances. A
   * taken id is answered with the plant stored under it, for the service to compare; one whose
   * plant was deleted before it could be read is tried again.
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

  /** An `UPDATE … FROM` changes a row once: a second patch of one plant waits for the next statement. */
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

  /** Checked in the `UPDATE`'s `WHERE`, which PostgreSQL re-evaluates on a row it waited for: one winner. */
  private async updateRows(
    manager: EntityManager,
    batch: readonly PendingUpdate[],
    callers: readonly Context[],
  ) {
    const rows = await manager.query<Array<PlantRecord & { version: number | null; found: boolean | null }>>(
      UPDATE_SQL,
      [
        batch.map(({ id }) => id),
        batch.map(({ ifMatch }) => (ifMatch ? `{${ifMatch.versions.join(',')}}` : null)),
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
  readonly ifMatch?: IfMatch;
}

const BY_IDS_SQL = `SELECT id, name, tag, version FROM plants WHERE id = ANY ($1::bigint[])`;

const INSERT_SQL = `
  INSERT INTO plants (id, name, tag)
  SELECT * FROM unnest($1::bigint[], $2::varchar[], $3::varchar[])
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;

/** The shared limit is a parameter so that the planner costs each scan as the few rows it is. */
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
 * `$2` holds each row's allowed versions as an array's text (null for any). A row that did not
 * change comes back with a null version and `found` telling a missing plant from a 412.
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
