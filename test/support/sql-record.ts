import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { BeforeQueryEvent, DataSource, EntitySubscriberInterface } from 'typeorm';

import { requestLogFields } from '../../src/core/logging/request-context.js';

/** The variable that makes the SQL record test rewrite its files rather than compare them. */
export const UPDATE_SQL_SNAPSHOTS = 'UPDATE_SQL_SNAPSHOTS';

/**
 * Records the statements TypeORM sends on behalf of requests (those with a
 * request id: not migrations, not the webhook dispatcher's background work),
 * as a TypeORM subscriber sees them, one line each.
 */
export class SqlRecorder implements EntitySubscriberInterface {
  private statements: string[] = [];

  constructor(dataSource: DataSource) {
    dataSource.subscribers.push(this);
  }

  beforeQuery({ query }: BeforeQueryEvent): void {
    if (requestLogFields().reqId !== undefined) {
      this.statements.push(query.replace(/\s+/g, ' ').trim());
    }
  }

  /** The statements recorded since the last call. */
  take(): string[] {
    const taken = this.statements;
    this.statements = [];
    return taken;
  }
}

/**
 * A record file, `-- <what the request was>` then its statements, compared
 * with the stored one; with `UPDATE_SQL_SNAPSHOTS=1`, written first.
 */
export async function sqlRecord(
  file: URL,
  sections: ReadonlyArray<readonly [request: string, statements: readonly string[]]>,
): Promise<{ stored: string | undefined; recorded: string }> {
  const recorded = [
    '-- The statements each request sends to PostgreSQL, recorded by test/sql-record.e2e-spec.ts: do not edit.',
    `-- ${UPDATE_SQL_SNAPSHOTS}=1 npm run test:e2e -- test/sql-record.e2e-spec.ts rewrites this file.`,
    ...sections.map(([request, statements]) =>
      ['', `-- ${request}`, ...statements.map((statement) => `${statement};`)].join('\n'),
    ),
    '',
  ].join('\n');
  const path = fileURLToPath(file);
  if (process.env[UPDATE_SQL_SNAPSHOTS] === '1') {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, recorded);
  }
  const stored = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') {
      return undefined;
    }
    throw error;
  });
  return { stored, recorded };
}
