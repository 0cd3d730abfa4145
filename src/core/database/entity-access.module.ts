import { type DynamicModule, Inject, Module, type Provider, type Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type ObjectLiteral } from 'typeorm';

import { databaseConfig, type DatabaseConfig } from '../config/database.config.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { WebhookOutbox } from '../webhooks/webhook-outbox.js';
import { EntityReader } from './entity-reader.js';
import { type ChangeEvent, EntityWriter, type WriterEvents } from './entity-writer.js';

/** What an entity's fast paths read, write and announce; every part has a default from its metadata. */
export interface EntityAccess<E extends ObjectLiteral> {
  readonly entity: Type<E>;
  /**
   * The properties read and written, the primary key among them; by default
   * the record's: every column but those TypeORM fills itself (creation,
   * update and deletion dates, version) and those of relations.
   */
  readonly columns?: ReadonlyArray<keyof E & string>;
  /**
   * The sets of equality filters keyset pages may have: by default none, and
   * the leading columns of every index that ends with the primary key.
   */
  readonly pageFilters?: ReadonlyArray<ReadonlyArray<keyof E & string>>;
  /**
   * The webhook event the writer records for each row it inserts
   * (`plant.created`), and the properties of its payload (by default the
   * columns written). Unset: no event.
   */
  readonly created?: { readonly event: string; readonly payload?: ReadonlyArray<keyof E & string> };
  /**
   * The event recorded for each update (`plant.updated`), by the update's own
   * statement, and its payload's properties (by default the columns
   * written, as they are after the update). Unset: no event.
   */
  readonly updated?: ChangeEvent<E>;
  /** Likewise for each delete (`plant.deleted`); its payload by default the primary key alone. */
  readonly deleted?: ChangeEvent<E>;
}

/**
 * Any entity's access, in a list of several entities' (each is checked
 * against its own entity by `entityAccess`; a list of them can only be
 * `any`, as `keyof` makes the type parameter contravariant).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEntityAccess = EntityAccess<any>;

/** An entity's access, typed by its entity (so that its property names are checked). */
export function entityAccess<E extends ObjectLiteral>(
  entity: Type<E>,
  options: Omit<EntityAccess<E>, 'entity'> = {},
): EntityAccess<E> {
  return { entity, ...options };
}

export function getEntityReaderToken(entity: Type): string {
  return `${entity.name}EntityReader`;
}

export function getEntityWriterToken(entity: Type): string {
  return `${entity.name}EntityWriter`;
}

/** Injects the entity's `EntityReader`, which `EntityAccessModule.forFeature` provides. */
export const InjectEntityReader = (entity: Type): ReturnType<typeof Inject> =>
  Inject(getEntityReaderToken(entity));

/** Injects the entity's `EntityWriter`, which `EntityAccessModule.forFeature` provides. */
export const InjectEntityWriter = (entity: Type): ReturnType<typeof Inject> =>
  Inject(getEntityWriterToken(entity));

/** Batch sizes and concurrency of the writers, from the database's configuration. */
export interface WriteBatching {
  readonly concurrency: number;
  readonly maxBatchSize: number;
}

export function createEntityReader<E extends ObjectLiteral>(
  dataSource: DataSource,
  access: EntityAccess<E>,
): EntityReader<E, keyof E & string> {
  return new EntityReader(dataSource, access.entity, {
    columns: access.columns,
    pageFilters: access.pageFilters,
  });
}

export function createEntityWriter<E extends ObjectLiteral>(
  dataSource: DataSource,
  access: EntityAccess<E>,
  batching: WriteBatching,
  events?: WriterEvents,
): EntityWriter<E, keyof E & string> {
  return new EntityWriter(
    dataSource,
    access.entity,
    {
      ...batching,
      columns: access.columns,
      created: access.created,
      updated: access.updated,
      deleted: access.deleted,
    },
    events,
  );
}

/**
 * The fast paths of reads, creates, updates and deletes as providers, per entity, the way
 * `TypeOrmModule.forFeature` provides repositories:
 *
 * ```ts
 * @Module({ imports: [EntityAccessModule.forFeature([entityAccess(Plant, { created: { event: 'plant.created' } })])] })
 * …
 * constructor(
 *   @InjectEntityReader(Plant) private readonly reader: EntityReader<Plant, 'id' | 'name' | 'tag'>,
 *   @InjectEntityWriter(Plant) private readonly writer: EntityWriter<Plant, 'id' | 'name' | 'tag'>,
 * ) {}
 * ```
 *
 * The entities are registered with TypeORM too. Each provider is made once
 * the data source is open, and builds every statement it will run then
 * (`statements`). The writers' batches come from `DATABASE_WRITE_CONCURRENCY`
 * and the batch size of the database's configuration; their events go
 * through the webhook outbox.
 */
@Module({})
export class EntityAccessModule {
  static forFeature(features: ReadonlyArray<Type<ObjectLiteral> | AnyEntityAccess>): DynamicModule {
    const accesses = features.map((feature): AnyEntityAccess =>
      typeof feature === 'function' ? { entity: feature } : feature,
    );
    const providers = accesses.flatMap((access): Provider[] => [
      {
        provide: getEntityReaderToken(access.entity),
        inject: [DataSource],
        useFactory: (dataSource: DataSource) => createEntityReader(dataSource, access),
        // Tells Nest's module hashing apart two features of one entity with other options.
        access: describe(access),
      } as Provider,
      {
        provide: getEntityWriterToken(access.entity),
        inject: [
          DataSource,
          databaseConfig.KEY,
          { token: WebhookOutbox, optional: true },
          { token: WebhookDispatcher, optional: true },
        ],
        useFactory: (
          dataSource: DataSource,
          database: DatabaseConfig,
          outbox?: WebhookOutbox,
          dispatcher?: WebhookDispatcher,
        ) =>
          createEntityWriter(
            dataSource,
            access,
            { concurrency: database.writeConcurrency, maxBatchSize: database.writeBatchSize },
            outbox && dispatcher ? { outbox, dispatcher } : undefined,
          ),
        access: describe(access),
      } as Provider,
    ]);
    return {
      module: EntityAccessModule,
      imports: [TypeOrmModule.forFeature(accesses.map((access) => access.entity))],
      providers,
      exports: providers,
    };
  }
}

function describe(access: AnyEntityAccess): string {
  return JSON.stringify({ ...access, entity: access.entity.name });
}
