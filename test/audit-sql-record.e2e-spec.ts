import { TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { AuditRetention } from '../src/core/audit/audit-retention.js';
import { FixtureNote, withFixtureNotes } from './fixtures/notes/note.entity.js';
import { useTestApp } from './support/app.js';
import { AUTH } from './support/factories.js';
import { SqlRecorder, sqlRecord } from './support/sql-record.js';

const TEST = 'test/audit-sql-record.e2e-spec.ts';

/**
 * The SQL the audit trail sends, kept beside it for review as the plants' is:
 * its reads, and the retention task's pruning and purge, whose lock and
 * setting are written by hand.
 */
describe('the SQL the audit trail sends', () => {
  const testApp = useTestApp(
    { LOG_LEVEL: 'error', AUDIT_RETENTION_DAYS: '30' },
    { imports: [TypeOrmModule.forFeature([FixtureNote])] },
  );

  it('is src/core/audit/audit.sql', async () => {
    const dataSource = testApp.app.get(DataSource);
    const recorder = new SqlRecorder(dataSource);
    const retention = testApp.app.get(AuditRetention);
    await withFixtureNotes(testApp.db, async () => {
      const sections: Array<[string, string[]]> = [];
      for (const [name, call] of [
        [
          'GET /audit-events?resource=plants&id=10&limit=2',
          () => request(testApp.server).get('/audit-events?resource=plants&id=10&limit=2').set(AUTH),
        ],
        [
          'GET /audit-events?actor=token:ci&since=2026-01-01T00:00:00Z&after=42',
          () =>
            request(testApp.server)
              .get('/audit-events?actor=token:ci&since=2026-01-01T00:00:00Z&after=42')
              .set(AUTH),
        ],
      ] as const) {
        recorder.take();
        await call();
        sections.push([name, recorder.take()]);
      }
      sections.push([
        'AuditRetention: a batch of events past AUDIT_RETENTION_DAYS',
        await recorder.during(() => retention.pruneEvents(1_000)),
      ]);
      sections.push([
        'AuditRetention: a batch of records soft-deleted past SOFT_DELETE_RETENTION_DAYS, and their events',
        await recorder.during(async () => {
          await testApp.db.query(
            "INSERT INTO fixture_notes (text, deleted_at) VALUES ('old', now() - interval '40 days')",
          );
          await retention.purgeSoftDeleted(dataSource.getMetadata(FixtureNote), 1_000);
        }),
      ]);

      const { stored, recorded } = await sqlRecord(
        new URL('../src/core/audit/audit.sql', import.meta.url),
        sections,
        {
          statements: 'The statements the audit trail sends to PostgreSQL',
          test: TEST,
        },
      );

      expect(stored).toBe(recorded);
    });
  });
});
