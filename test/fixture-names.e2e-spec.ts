import { fileURLToPath } from 'node:url';

import request from 'supertest';
import { DataSource, QueryResult, type QueryRunner } from 'typeorm';

import { requiredScopesOf } from '../src/core/auth/scopes.js';
import { discoverMigrations } from '../src/core/database/migration-discovery.js';
import { DeclaredRoutes } from '../src/core/http/declared-routes.js';
import { startTestApp, type TestApp } from './support/app.js';
import { FixtureGardensModule } from './fixtures/gardens/gardens.module.js';
import { FixtureOrdersModule } from './fixtures/orders/orders.module.js';
import { FixtureWidgetsModule } from './fixtures/widgets/widgets.module.js';

type Document = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed OpenAPI document

/** What an application names: each kind of name a resource brings, as a set. */
interface Names {
  readonly paths: Set<string>;
  readonly tags: Set<string>;
  readonly schemas: Set<string>;
  readonly operationIds: Set<string>;
  readonly scopes: Set<string>;
  readonly controllers: Set<string>;
}

async function namesOf(testApp: TestApp): Promise<Names> {
  const document = (await request(testApp.server).get('/openapi.json').expect(200)).body as Document;
  const operations = Object.values(document.paths as Record<string, Record<string, Document>>).flatMap(
    (pathItem) => Object.values(pathItem),
  );
  const routes = testApp.app.get(DeclaredRoutes).all();
  return {
    paths: new Set(Object.keys(document.paths as Document)),
    tags: new Set((document.tags as Array<{ name: string }>).map(({ name }) => name)),
    schemas: new Set(Object.keys(document.components.schemas as Document)),
    operationIds: new Set(operations.map(({ operationId }) => operationId as string)),
    scopes: new Set(routes.flatMap(({ controller, handler }) => requiredScopesOf(controller, handler))),
    controllers: new Set(routes.map(({ controller }) => controller.name)),
  };
}

/** The names in `names` that `own` does not have. */
function added(names: Set<string>, own: Set<string>): string[] {
  return [...names].filter((name) => !own.has(name)).sort();
}

/**
 * The migrations found under `test/`, by class name without its timestamp,
 * and the statements their `up()` sends, read without a database.
 */
async function migrationsOfTheTests(): Promise<{ names: string[]; statements: string[] }> {
  const migrations = await discoverMigrations([fileURLToPath(new URL('.', import.meta.url))]);
  const statements: string[] = [];
  const runner: Pick<QueryRunner, 'query'> = {
    query: (statement: string) => {
      statements.push(statement);
      return Promise.resolve(new QueryResult());
    },
  };
  for (const migration of migrations) {
    await new migration().up(runner as QueryRunner);
  }
  return { names: migrations.map(({ name }) => name.replace(/\d+$/, '')), statements };
}

/** The tables, constraints and indexes a statement creates or changes, by name. */
function createdNames(statement: string): string[] {
  return [
    ...statement.matchAll(
      /(?:CREATE TABLE|ALTER TABLE|CONSTRAINT|CREATE (?:UNIQUE )?INDEX(?: CONCURRENTLY)?) "(\w+)"/g,
    ),
  ].map(([, name]) => name);
}

/**
 * The resources that exist only in the tests (`test/fixtures/`) take no name
 * a team may give a resource of its own (`nest g resource gardens`, orders,
 * widgets…): each name they bring, in the database, the OpenAPI document,
 * the scopes and the code, carries the fixture prefix.
 */
describe('the resources of the tests', () => {
  let own: TestApp;
  let withFixtures: TestApp;

  beforeAll(async () => {
    own = await startTestApp();
    withFixtures = await startTestApp(
      {},
      { imports: [FixtureGardensModule, FixtureOrdersModule, FixtureWidgetsModule] },
    );
  });

  afterAll(async () => {
    await Promise.all([own?.close(), withFixtures?.close()]);
  });

  it('add routes, tags, schemas, operationIds, scopes and controllers whose names carry the prefix', async () => {
    const [before, after] = await Promise.all([namesOf(own), namesOf(withFixtures)]);
    const prefixes: Record<keyof Names, RegExp> = {
      paths: /^\/fixture-/,
      tags: /^fixture-/,
      schemas: /Fixture[A-Z]/,
      operationIds: /Fixture[A-Z]/,
      scopes: /^fixture-[a-z-]+:(read|write)$/,
      controllers: /^Fixture[A-Z]/,
    };

    for (const kind of Object.keys(prefixes) as Array<keyof Names>) {
      const names = added(after[kind], before[kind]);
      expect({ kind, some: names.length > 0 }).toStrictEqual({ kind, some: true });
      expect({ kind, names }).toStrictEqual({
        kind,
        names: names.filter((name) => prefixes[kind].test(name)),
      });
    }
  });

  it('name their migrations, and each table, constraint and index these create, with the prefix', async () => {
    const { names, statements } = await migrationsOfTheTests();
    const created = statements.flatMap(createdNames);

    expect(names).toStrictEqual([
      'CreateFixtureOrders',
      'AddFixtureOrderVersion',
      'CreateFixtureGardensAndShrubs',
    ]);
    expect(created.length).toBeGreaterThan(0);
    expect(created).toStrictEqual(created.filter((name) => name.startsWith('fixture_')));
  });

  it('keep every constraint and index of their tables under the prefix, and name their entities with it', async () => {
    const { statements } = await migrationsOfTheTests();
    const tables = [
      ...new Set(
        statements.flatMap((statement) =>
          [...statement.matchAll(/CREATE TABLE "(\w+)"/g)].map(([, table]) => table),
        ),
      ),
    ].sort();
    const { rows } = await withFixtures.db.query<{ name: string }>(
      `SELECT conname::text AS name FROM pg_constraint WHERE conrelid = ANY($1::text[]::regclass[])
       UNION SELECT indexname::text FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY($1::text[])`,
      [tables],
    );
    const inDatabase = rows.map(({ name }) => name);
    const entities = withFixtures.app
      .get(DataSource)
      .entityMetadatas.filter(({ tableName }) => tables.includes(tableName))
      .map(({ name }) => name)
      .sort();

    expect(tables).toStrictEqual(['fixture_gardens', 'fixture_orders', 'fixture_shrubs']);
    expect(inDatabase.length).toBeGreaterThan(0);
    expect(inDatabase).toStrictEqual(inDatabase.filter((name) => name.startsWith('fixture_')));
    expect(entities).toStrictEqual(['FixtureGarden', 'FixtureOrder', 'FixtureShrub']);
  });
});
