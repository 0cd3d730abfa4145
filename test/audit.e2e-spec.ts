import { TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { recordAudit } from '../src/core/audit/audit-trail.js';
import { deleteIfMatch, updateIfMatch } from '../src/core/database/if-match.js';

import { FixtureNote, withFixtureNotes } from './fixtures/notes/note.entity.js';
import { useTestApp } from './support/app.js';
import { TEST_TOKEN_ACTOR } from './support/environment.js';
import { AUTH, newPlant } from './support/factories.js';
import { ISSUER, JwtIssuer } from './support/jwt-issuer.js';

const MERGE_PATCH = 'application/merge-patch+json';

interface AuditEvent {
  readonly id: number;
  readonly at: string;
  readonly actor: string;
  readonly actorIssuer?: string;
  readonly action: string;
  readonly resource: string;
  readonly resourceId: string;
  readonly changes: Record<string, unknown>;
  readonly requestId?: string;
}

describe('the audit trail', () => {
  const issuer = new JwtIssuer();
  const testApp = useTestApp(
    () => ({
      ...issuer.serviceEnv,
      AUTH_TOKENS: `ci:audit-named-token-0123456789,e2e-test-token-0123456789abcdef`,
    }),
    { servers: [issuer] },
  );
  const NAMED = { Authorization: 'Bearer audit-named-token-0123456789' };

  const history = async (query: string, headers: Record<string, string> = AUTH) => {
    const response = await request(testApp.server).get(`/audit-events?${query}`).set(headers);
    expect(response.status).toBe(200);
    return response.body as AuditEvent[];
  };

  const events = async () =>
    (await testApp.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_events')).rows[0].n;

  it('reads back a plant’s create, update and delete, each with its actor, changes and request id', async () => {
    const plant = newPlant({ name: 'Fern', tag: 'pteridophyte' });
    const created = await request(testApp.server)
      .post('/plants')
      .set(AUTH)
      .set('X-Request-Id', 'audit-create-1')
      .send(plant)
      .expect(200);
    const patched = await request(testApp.server)
      .patch(`/plants/${plant.id as number}`)
      .set(NAMED)
      .set({ 'Content-Type': MERGE_PATCH, 'If-Match': '"1"' })
      .send(JSON.stringify({ name: 'Maidenhair', tag: null }))
      .expect(200);
    const jwt = { Authorization: `Bearer ${await issuer.token({ sub: 'gardener-7' })}` };
    const deleted = await request(testApp.server)
      .delete(`/plants/${plant.id as number}`)
      .set(jwt)
      .expect(204);

    const trail = await history(`resource=plants&id=${plant.id as number}`);

    expect(trail).toStrictEqual([
      {
        id: expect.any(Number),
        at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        actor: TEST_TOKEN_ACTOR,
        action: 'create',
        resource: 'plants',
        resourceId: String(plant.id as number),
        changes: { name: 'Fern', tag: 'pteridophyte' },
        requestId: 'audit-create-1',
      },
      {
        id: expect.any(Number),
        at: expect.any(String),
        actor: 'token:ci',
        action: 'update',
        resource: 'plants',
        resourceId: String(plant.id as number),
        changes: { name: { from: 'Fern', to: 'Maidenhair' }, tag: { from: 'pteridophyte', to: null } },
        requestId: patched.headers['x-request-id'],
      },
      {
        id: expect.any(Number),
        at: expect.any(String),
        actor: 'jwt:gardener-7',
        actorIssuer: ISSUER,
        action: 'delete',
        resource: 'plants',
        resourceId: String(plant.id as number),
        changes: { name: 'Maidenhair', tag: null },
        requestId: deleted.headers['x-request-id'],
      },
    ]);
    expect(created.headers['x-request-id']).toBe('audit-create-1');
    expect(trail.map((event) => event.id)).toStrictEqual(
      [...trail.map((event) => event.id)].sort((a, b) => a - b),
    );
  });

  it('keeps one event per create when many are batched together, each with its own request id', async () => {
    const plants = Array.from({ length: 40 }, () => newPlant());

    await Promise.all(
      plants.map((plant, index) =>
        request(testApp.server)
          .post('/plants')
          .set(AUTH)
          .set('X-Request-Id', `batch-${index}`)
          .send(plant)
          .expect(200),
      ),
    );

    const trail = await history('resource=plants&limit=100');
    expect(trail.map((event) => [event.resourceId, event.requestId]).sort()).toStrictEqual(
      plants.map((plant, index) => [String(plant.id as number), `batch-${index}`]).sort(),
    );
    // An event's time is its transaction's: the plant's creation time, to the microsecond.
    const { rows } = await testApp.db.query<{ same: number }>(
      `SELECT count(*)::int AS same FROM plants JOIN audit_events ON resource_id = plants.id::text
       WHERE audit_events.at = plants.created_at`,
    );
    expect(rows[0].same).toBe(plants.length);
  });

  it('records no event for a refused change: a taken id, a stale If-Match, a bad body, a missing plant', async () => {
    const plant = newPlant({ name: 'Fern' });
    await request(testApp.server).post('/plants').set(AUTH).send(plant).expect(200);
    const before = await events();

    await request(testApp.server)
      .post('/plants')
      .set(AUTH)
      .send({ ...plant, name: 'Moss' })
      .expect(409);
    // The same plant again writes nothing, so it is no change either.
    await request(testApp.server).post('/plants').set(AUTH).send(plant).expect(200);
    await request(testApp.server)
      .patch(`/plants/${plant.id as number}`)
      .set(AUTH)
      .set({ 'Content-Type': MERGE_PATCH, 'If-Match': '"7"' })
      .send(JSON.stringify({ name: 'Moss' }))
      .expect(412);
    await request(testApp.server)
      .patch(`/plants/${plant.id as number}`)
      .set(AUTH)
      .send({ name: '' })
      .expect(400);
    await request(testApp.server)
      .patch(`/plants/${plant.id as number}`)
      .set(AUTH)
      .send({})
      .expect(200);
    await request(testApp.server).delete('/plants/4040404').set(AUTH).expect(404);
    await request(testApp.server)
      .delete(`/plants/${plant.id as number}`)
      .set(AUTH)
      .set('If-Match', '"9"')
      .expect(412);

    await expect(events()).resolves.toBe(before);
  });

  it('records no event for a change PostgreSQL refuses, which rolls back with it', async () => {
    const plant = newPlant({ name: 'Fern' });
    await request(testApp.server).post('/plants').set(AUTH).send(plant).expect(200);
    const before = await events();
    await testApp.db.query("ALTER TABLE plants ADD CONSTRAINT plants_no_weeds CHECK (name <> 'Weed')");
    try {
      await request(testApp.server)
        .patch(`/plants/${plant.id as number}`)
        .set(AUTH)
        .send({ name: 'Weed' })
        .expect(400);
      await request(testApp.server)
        .post('/plants')
        .set(AUTH)
        .send(newPlant({ name: 'Weed' }))
        .expect(400);
    } finally {
      await testApp.db.query('ALTER TABLE plants DROP CONSTRAINT plants_no_weeds');
    }

    await expect(events()).resolves.toBe(before);
  });

  it('pages oldest first with a Link, and filters by actor and time', async () => {
    for (const plant of [newPlant(), newPlant(), newPlant()]) {
      await request(testApp.server).post('/plants').set(NAMED).send(plant).expect(200);
    }
    await request(testApp.server).post('/plants').set(AUTH).send(newPlant()).expect(200);

    const first = await request(testApp.server).get('/audit-events?actor=token:ci&limit=2').set(AUTH);
    expect(first.status).toBe(200);
    expect((first.body as AuditEvent[]).map((event) => event.actor)).toStrictEqual(['token:ci', 'token:ci']);
    const next = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))![1];
    expect(next).toBe(`/audit-events?actor=token%3Aci&limit=2&after=${(first.body as AuditEvent[])[1].id}`);
    const rest = await request(testApp.server).get(next).set(AUTH);
    expect(rest.body as AuditEvent[]).toHaveLength(1);
    expect(rest.headers.link).toBeUndefined();

    await expect(history('since=2999-01-01T00:00:00Z')).resolves.toStrictEqual([]);
    await expect(history('since=2000-01-01T00:00:00Z')).resolves.toHaveLength(4);
  });

  it.each([
    ['resource=gizmos', 'resource gizmos is not one the audit trail keeps: '],
    ['id=10', 'id needs resource'],
    ['since=yesterday', 'since must be an RFC 3339 date-time'],
    ['since=2026-11-28', 'since must be an RFC 3339 date-time'],
    ['limit=0', 'limit must be an integer from 1 to 100'],
    ['foo=1', 'query parameter foo is not allowed'],
  ])('refuses %s with 400, naming what is wrong', async (query, named) => {
    const response = await request(testApp.server).get(`/audit-events?${query}`).set(AUTH);

    expect(response.status).toBe(400);
    expect(response.body).toStrictEqual({ error: 400, message: expect.stringContaining(named) });
  });

  it('needs the audit:read scope, which a plants token does not carry', async () => {
    const plants = { Authorization: `Bearer ${await issuer.token({ scope: 'plants:read plants:write' })}` };
    const auditor = { Authorization: `Bearer ${await issuer.token({ scope: 'audit:read' })}` };

    const refused = await request(testApp.server).get('/audit-events').set(plants);
    expect(refused.status).toBe(403);
    expect(refused.body).toStrictEqual({
      error: 403,
      message: 'The bearer token lacks the audit:read scope',
    });
    await request(testApp.server).get('/audit-events').set(auditor).expect(200);
  });

  it('has no route that changes or deletes an event', async () => {
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      const response = await request(testApp.server)[method]('/audit-events').set(AUTH).send({});
      expect({ method, status: response.status }).toStrictEqual({ method, status: 405 });
    }
  });

  it('is append-only in the database too: an UPDATE, a DELETE or a TRUNCATE is refused', async () => {
    await request(testApp.server).post('/plants').set(AUTH).send(newPlant()).expect(200);

    for (const statement of [
      "UPDATE audit_events SET actor = 'someone else'",
      'DELETE FROM audit_events',
      'TRUNCATE audit_events',
    ]) {
      await expect(testApp.db.query(statement)).rejects.toThrow('audit_events is append-only');
    }
    await expect(events()).resolves.toBe(1);
  });
});

describe('the audit trail of a sensitive field', () => {
  const testApp = useTestApp({}, { imports: [TypeOrmModule.forFeature([FixtureNote])] });

  it('records a sensitive field as given or changed, never with its values, in every action', async () => {
    await withFixtureNotes(testApp.db, changeAndReadBack);
  });

  async function changeAndReadBack() {
    const dataSource = testApp.app.get(DataSource);
    const key = await dataSource.transaction(async (manager) => {
      const created = await manager.save(manager.create(FixtureNote, { text: 'deploy', secret: 'hunter2' }));
      await recordAudit(manager, [{ action: 'create', target: FixtureNote, after: created }]);
      return created;
    });
    await dataSource.transaction((manager) =>
      updateIfMatch(manager, FixtureNote, { id: key.id }, { secret: 'correct horse', text: 'deploy-2' }),
    );
    await dataSource.transaction((manager) => deleteIfMatch(manager, FixtureNote, { id: key.id }));

    const response = await request(testApp.server)
      .get(`/audit-events?resource=fixture-notes&id=${key.id}`)
      .set(AUTH);

    expect(response.status).toBe(200);
    expect((response.body as AuditEvent[]).map(({ action, changes }) => ({ action, changes }))).toStrictEqual(
      [
        { action: 'create', changes: { text: 'deploy', secret: { redacted: true } } },
        {
          action: 'update',
          changes: { text: { from: 'deploy', to: 'deploy-2' }, secret: { redacted: true } },
        },
        { action: 'delete', changes: { text: 'deploy-2', secret: { redacted: true } } },
      ],
    );
    const { rows } = await testApp.db.query<{ changes: string }>('SELECT changes::text FROM audit_events');
    expect(rows.map((row) => row.changes).join()).not.toMatch(/hunter2|correct horse/);
  }
});
