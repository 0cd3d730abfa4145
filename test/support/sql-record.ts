import { AsyncLocalStorage } from 'node:async_hooks';
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
 * and those of work run `during()` a recording, as a TypeORM subscriber sees
 * them, one line each.
 */
export class SqlRecorder implements EntitySubscriberInterface {
  private statements: string[] = [];
  private readonly recording = new AsyncLocalStorage<true>();

  constructor(dataSource: DataSource) {
    dataSource.subscribers.push(this);
  }

  beforeQuery({ query }: BeforeQueryEvent): void {
    if (requestLogFields().reqId !== undefined || this.recording.getStore()) {
      this.statements.push(query.replace(/\s+/g, ' ').trim());
    }
  }

  /** The statements `work` sent, on no request's behalf; the background work's are left out. */
  async during(work: () => Promise<unknown>): Promise<string[]> {
    this.take();
    await this.recording.run(true, work);
    return this.take();
  }

  /** The statements recorded since the last call. */
  take(): string[] {
    const taken = this.statements;
    this.statements = [];
    return taken;
  }
}

/** What a record holds, and the test that writes it. */
export interface SqlRecordHeading {
  readonly statements: string;
  readonly test: string;
}

const REQUESTS: SqlRecordHeading = {
  statements: 'The statements each request sends to PostgreSQL',
  test: 'test/sql-record.e2e-spec.ts',
};

/**
 * A record file, `-- <what the request was>` then its statements, compared
 * with the stored one; with `UPDATE_SQL_SNAPSHOTS=1`, written first.
 */
export async function sqlRecord(
  file: URL,
  sections: ReadonlyArray<readonly [request: string, statements: readonly string[]]>,
  heading: SqlRecordHeading = REQUESTS,
): Promise<{ stored: string | undefined; recorded: string }> {
  const recorded = [
    `-- ${heading.statements}, recorded by ${heading.test}: do not edit.`,
    `-- ${UPDATE_SQL_SNAPSHOTS}=1 npm run test:e2e -- ${heading.test} rewrites this file.`,
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
