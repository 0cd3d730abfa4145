import { TypeOrmModule } from '@nestjs/typeorm';
import pg from 'pg';
import request from 'supertest';

import { RetentionTask } from '../src/core/retention/retention.task.js';
import { FixtureNote, withFixtureNotes } from './fixtures/notes/note.entity.js';
import { useTestApp } from './support/app.js';
import { AUTH, newPlant } from './support/factories.js';

const RETENTION_LOCK_KEY = 0x7265746e;

describe('retention: the audit trail and soft-deleted records', () => {
  const testApp = useTestApp(
    { AUDIT_RETENTION_DAYS: '30', SOFT_DELETE_RETENTION_DAYS: '7' },
    { imports: [TypeOrmModule.forFeature([FixtureNote])] },
  );

  const countOf = async (sql: string) => (await testApp.db.query<{ n: number }>(sql)).rows[0].n;

  it('prunes the audit events older than AUDIT_RETENTION_DAYS, and keeps the others', async () => {
    await request(testApp.server).post('/plants').set(AUTH).send(newPlant()).expect(200);
    await testApp.db.query(
      `INSERT INTO audit_events (at, actor, action, resource, resource_id, changes)
       SELECT now() - make_interval(days => 31), 'token:old', 'create', 'plants', g::text, '{}'
       FROM generate_series(1, 2500) AS g`,
    );

    const removed = await testApp.app.get(RetentionTask).removeExpired();

    expect(removed['audit events']).toBe(2500);
    await expect(
      countOf("SELECT count(*)::int AS n FROM audit_events WHERE actor = 'token:old'"),
    ).resolves.toBe(0);
    await expect(countOf('SELECT count(*)::int AS n FROM audit_events')).resolves.toBe(1);
  });

  it('leaves the work to the instance that holds the lock, and does it once the lock is free', async () => {
    await testApp.db.query(
      `INSERT INTO audit_events (at, actor, action, resource, resource_id, changes)
       VALUES (now() - make_interval(days => 40), 'token:old', 'create', 'plants', '1', '{}')`,
    );
    const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [RETENTION_LOCK_KEY]);
      await expect(testApp.app.get(RetentionTask).removeExpired()).resolves.toMatchObject({
        'audit events': 0,
      });
      await other.query('SELECT pg_advisory_unlock($1)', [RETENTION_LOCK_KEY]);
    } finally {
      await other.end();
    }

    await expect(testApp.app.get(RetentionTask).removeExpired()).resolves.toMatchObject({
      'audit events': 1,
    });
  });

  it('purges records soft-deleted more than SOFT_DELETE_RETENTION_DAYS ago, each recorded as the service’s delete', async () => {
    await withFixtureNotes(testApp.db, async () => {
      await testApp.db.query(
        `INSERT INTO fixture_notes (id, text, deleted_at) VALUES
           (1, 'kept', NULL), (2, 'deleted yesterday', now() - interval '1 day'), (3, 'deleted long ago', now() - interval '8 days')`,
      );

      const removed = await testApp.app.get(RetentionTask).removeExpired();

      expect(removed['soft-deleted records of fixture_notes']).toBe(1);
      const { rows } = await testApp.db.query<{ id: string }>(
        'SELECT id::text FROM fixture_notes ORDER BY id',
      );
      expect(rows.map(({ id }) => id)).toStrictEqual(['1', '2']);
      const trail = await request(testApp.server).get('/audit-events?resource=fixture-notes&id=3').set(AUTH);
      expect(trail.body).toStrictEqual([
        expect.objectContaining({
          actor: 'service:retention',
          action: 'delete',
          changes: { text: 'deleted long ago', secret: { redacted: true } },
        }),
      ]);
      expect(trail.body[0]).not.toHaveProperty('requestId');
    });
  });
});
