import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Context } from '@opentelemetry/api';
import { type EntityManager, In, Repository } from 'typeorm';

import { type AuditCaller, auditCaller, recordAudit } from '../core/audit/audit-trail.js';
import { databaseConfig, type DatabaseConfig } from '../core/config/database.config.js';
import { isDatabaseUnavailableError } from '../core/database/database-errors.js';
import { withinDeadline } from '../core/database/deadline.js';
import { checkIfMatch, deleteIfMatch, type IfMatch } from '../core/database/if-match.js';
import { ReadReplicas } from '../core/database/read-replicas.js';
import { type ListPage, ListPages } from '../core/lists/list-pages.js';
import type { ListRequest } from '../core/lists/list-request.js';
import type { CountPreference } from '../core/lists/prefer.js';
import { WebhookOutbox } from '../core/webhooks/webhook-outbox.js';
import { BatchLoader } from '../core/database/batch-loader.js';
import { Plant } from './plant.entity.js';
import { plantView } from './plant.view.js';

/** A plant as a create sends it: the fields of `NewPlantDto`, its id as exact digits; a field left out is the column's default. */
export type NewPlantRow = Pick<Plant, 'id' | 'name'> &
  Partial<Omit<Plant, 'id' | 'name' | 'version' | 'createdAt' | 'updatedAt'>>;

/** What a create found: its plant stored now, or the plant its id held already. */
export interface CreateOutcome {
  readonly created: boolean;
  readonly stored: NewPlantRow;
}

/** The changes of a merge patch: a property left out stays as it is, a `null` removes a nullable one. */
export type PlantChanges = Partial<Pick<Plant, 'name' | 'tag'>>;

/** Fewer batches in flight make larger ones; one that finds the database unavailable fails those waiting. */
const READS = { inFlight: 4, maxBatchSize: 256, unavailable: isDatabaseUnavailableError };
const WRITES = { inFlight: 2, maxBatchSize: 256, unavailable: isDatabaseUnavailableError };
/** Beyond a statement's own limit, a batch's several statements get this long before the client hears 503. */
const DEADLINE_BEYOND_STATEMENT_TIMEOUT_MS = 500;

/**
 * The plants' reads and writes, on TypeORM's repository and query builder. Reads by id, creates and
 * patches are batched (`BatchLoader`, DataLoader's idea): on these paths the round trip to PostgreSQL
 * costs more than the statement, so many requests share one `findBy` with `In`, one multi-row insert
 * or one multi-row upsert (docs/performance.md#batched-reads-and-writes-of-plants). A batch that
 * PostgreSQL refuses is tried again one request at a time, so one bad row fails alone. Reads may go to
 * a replica; a change records its webhook events in its own transaction.
 */
@Injectable()
export class PlantsRepository {
  private readonly byId: BatchLoader<string, Plant | null>;
  private readonly creates: BatchLoader<PendingCreate, CreateOutcome>;
  private readonly updates: BatchLoader<PendingUpdate, Plant | null>;
  private readonly deadlineMs: number;

  constructor(
    @InjectRepository(Plant) private readonly plants: Repository<Plant>,
    private readonly replicas: ReadReplicas,
    private readonly outbox: WebhookOutbox,
    private readonly lists: ListPages,
    @Inject(databaseConfig.KEY) config: DatabaseConfig,
  ) {
    this.deadlineMs = config.statementTimeoutMs + DEADLINE_BEYOND_STATEMENT_TIMEOUT_MS;
    const deadlineMs = this.deadlineMs;
    this.byId = new BatchLoader((ids) => this.findByIds(ids), {
      ...READS,
      deadlineMs,
      span: 'plants batch read',
    });
    this.creates = new BatchLoader(
      (creates, callers) =>
        this.oneAtATimeIfRefused(creates, callers, (manager, part, contexts) =>
          this.insert(manager, part, contexts),
        ),
      { ...WRITES, deadlineMs, span: 'plants batch insert' },
    );
    this.updates = new BatchLoader((updates, callers) => this.updateAll(updates, callers), {
      ...WRITES,
      deadlineMs,
      span: 'plants batch update',
    });
  }

  findById(id: string): Promise<Plant | null> {
    return this.byId.load(id);
  }

  /**
   * A page of the plants' list (dto/list-plants.query.ts), sorted and filtered as asked: keyset pages
   * from indexes, so a deep page costs no more; counted when the client prefers.
   */
  page(request: ListRequest<Plant>, count?: CountPreference): Promise<ListPage<Plant>> {
    return this.replicas.read((manager) => this.lists.page(manager, request, count));
  }

  /** Stores the plant unless its id is taken; resolves once it and its `plant.created` event commit. */
  create(plant: NewPlantRow): Promise<CreateOutcome> {
    return this.creates.load({ plant, caller: auditCaller() });
  }

  /**
   * Applies the changes if the plant is at a version `If-Match` names; `null` when there is no plant.
   * Empty changes leave even the version alone.
   */
  update(id: string, changes: PlantChanges, ifMatch?: IfMatch): Promise<Plant | null> {
    return this.updates.load({ id, changes, ifMatch, caller: auditCaller() });
  }

  /** Deletes the plant if it is at one of the versions `If-Match` names, recording `plant.deleted` and its audit event. */
  remove(id: string, ifMatch?: IfMatch): Promise<boolean> {
    return withinDeadline(
      this.plants.manager.transaction(async (manager) => {
        const plant = await deleteIfMatch(manager, Plant, { id }, ifMatch);
        if (plant) {
          await this.outbox.enqueue(manager, 'plant.deleted', { id: plantView(plant).id });
        }
        return plant !== null;
      }),
      this.deadlineMs,
    );
  }

  private async findByIds(ids: readonly string[]): Promise<Array<Plant | null>> {
    const plants = await this.replicas.read((manager) => manager.findBy(Plant, { id: In([...ids]) }));
    const byId = new Map(plants.map((plant) => [plant.id, plant]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * `orIgnore()` (`ON CONFLICT DO NOTHING`) lets the database settle races with other batches and
   * instances. A taken id is answered with the plant stored under it, for the service to compare; one
   * whose plant was deleted before it could be read is tried again.
   */
  private async insert(
    manager: EntityManager,
    creates: readonly PendingCreate[],
    callers: readonly Context[],
  ): Promise<CreateOutcome[]> {
    const plants = creates.map(({ plant }) => plant);
    const outcomes = new Array<CreateOutcome>(plants.length);
    let waiting = plants.map((_, index) => index);
    while (waiting.length > 0) {
      const first = firstOfEachId(
        waiting.map((index) => plants[index].id),
        waiting,
      );
      const result = await manager
        .createQueryBuilder()
        .insert()
        .into(Plant)
        .values([...first.values()].map((index) => plants[index]))
        .orIgnore()
        .returning(['id'])
        .updateEntity(false)
        .execute();
      const inserted = [...new Set((result.raw as Array<{ id: string }>).map((row) => row.id))].map((id) =>
        first.get(id)!,
      );
      await this.outbox.enqueueAll(
        manager,
        inserted.map((index) => ({
          type: 'plant.created',
          payload: plantView(plants[index]),
          context: callers[index],
        })),
      );
      await recordAudit(
        manager,
        inserted.map((index) => ({
          action: 'create',
          target: Plant,
          after: plants[index],
          caller: creates[index].caller,
        })),
      );
      const insertedIds = new Set(inserted.map((index) => plants[index].id));
      const taken = [...first.keys()].filter((id) => !insertedIds.has(id));
      const stored = new Map(
        taken.length === 0
          ? []
          : (await manager.findBy(Plant, { id: In(taken) })).map((plant) => [plant.id, plant]),
      );
      const again: number[] = [];
      for (const index of waiting) {
        const { id } = plants[index];
        const winner = first.get(id)!;
        if (insertedIds.has(id)) {
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

  /** A row changes once per statement: a second patch of one plant waits for the next batch of the loop. */
  private async updateAll(
    batch: readonly PendingUpdate[],
    callers: readonly Context[],
  ): Promise<Array<Plant | null | Error>> {
    const outcomes = new Array<Plant | null | Error>(batch.length);
    let waiting = batch.map((_, index) => index);
    while (waiting.length > 0) {
      const first = firstOfEachId(
        waiting.map((index) => batch[index].id),
        waiting,
      );
      const now = [...first.values()];
      const answers = await this.oneAtATimeIfRefused(
        now.map((index) => batch[index]),
        now.map((index) => callers[index]),
        (manager, updates, contexts) => this.updateRows(manager, updates, contexts),
      );
      now.forEach((index, position) => (outcomes[index] = answers[position]));
      const done = new Set(now);
      waiting = waiting.filter((index) => !done.has(index));
    }
    return outcomes;
  }

  /**
   * The plants are locked in id order (so that batches never deadlock one another), checked against
   * `If-Match` and changed with one upsert of every changed row: each row exists and is locked, so each
   * is updated, its version counted up and `updated_at` set.
   */
  private async updateRows(
    manager: EntityManager,
    batch: readonly PendingUpdate[],
    callers: readonly Context[],
  ): Promise<Array<Plant | null | Error>> {
    const locked = await manager.find(Plant, {
      where: { id: In(batch.map(({ id }) => id)) },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
    const byId = new Map(locked.map((plant) => [plant.id, plant]));
    const changed: Array<{ before: Plant; after: Plant; caller: AuditCaller; context: Context }> = [];
    const outcomes = batch.map(({ id, changes, ifMatch, caller }, index): Plant | null | Error => {
      const plant = byId.get(id);
      if (!plant) {
        return null;
      }
      const refusal = checkIfMatch(manager, Plant, plant, ifMatch, hasChanges(changes));
      if (refusal) {
        return refusal;
      }
      if (!hasChanges(changes)) {
        return plant;
      }
      // The times are PostgreSQL's to give: the creation's kept, the change's now.
      const after = manager.create(Plant, {
        ...plant,
        ...changes,
        version: plant.version + 1,
        createdAt: undefined,
        updatedAt: undefined,
      });
      changed.push({ before: plant, after, caller, context: callers[index] });
      return after;
    });
    if (changed.length > 0) {
      await manager.upsert(
        Plant,
        changed.map(({ after }) => after),
        ['id'],
      );
      await this.outbox.enqueueAll(
        manager,
        changed.map(({ after, context }) => ({ type: 'plant.updated', payload: plantView(after), context })),
      );
      await recordAudit(
        manager,
        changed.map(({ before, after, caller }) => ({
          action: 'update',
          target: Plant,
          before,
          after,
          caller,
        })),
      );
    }
    return outcomes;
  }

  /**
   * Runs a batch's work in one transaction; if PostgreSQL refuses it (a row breaks a constraint, say),
   * runs it again request by request, each in a savepoint of one transaction on one connection, so
   * that one bad row fails only its own request and the others still commit together.
   */
  private async oneAtATimeIfRefused<K, V>(
    keys: readonly K[],
    callers: readonly Context[],
    work: (
      manager: EntityManager,
      keys: readonly K[],
      callers: readonly Context[],
    ) => Promise<Array<V | Error>>,
  ): Promise<Array<V | Error>> {
    try {
      return await this.plants.manager.transaction((manager) => work(manager, keys, callers));
    } catch (error) {
      if (keys.length === 1 || isDatabaseUnavailableError(error)) {
        throw error;
      }
      return this.plants.manager.transaction(async (manager) => {
        const outcomes: Array<V | Error> = [];
        for (const [index, key] of keys.entries()) {
          // A transaction inside a transaction is a savepoint, which a failure rolls back alone.
          const outcome = await manager
            .transaction((savepoint) => work(savepoint, [key], [callers[index]]))
            .then(
              ([done]) => done,
              (failure: Error) => failure,
            );
          if (outcome instanceof Error && isDatabaseUnavailableError(outcome)) {
            throw outcome;
          }
          outcomes.push(outcome);
        }
        return outcomes;
      });
    }
  }
}

interface PendingCreate {
  readonly plant: NewPlantRow;
  /** The request's, taken when it asked: the batch may run in another's context. */
  readonly caller: AuditCaller;
}

interface PendingUpdate {
  readonly id: string;
  readonly changes: PlantChanges;
  readonly ifMatch?: IfMatch;
  readonly caller: AuditCaller;
}

function hasChanges(changes: PlantChanges): boolean {
  return Object.keys(changes).length > 0;
}

/** For each id, the first of `indexes` (in order) that carries it. */
function firstOfEachId(ids: readonly string[], indexes: readonly number[]): Map<string, number> {
  const first = new Map<string, number>();
  ids.forEach((id, position) => {
    if (!first.has(id)) {
      first.set(id, indexes[position]);
    }
  });
  return first;
}
