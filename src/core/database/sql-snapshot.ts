import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { WebhookConfig } from '../config/webhook.config.js';
import { WebhookOutbox } from '../webhooks/webhook-outbox.js';
import { type AnyEntityAccess, createEntityReader, createEntityWriter } from './entity-access.module.js';
import type { NamedStatement } from './entity-table.js';
import { metadataDataSource } from './metadata-data-source.js';

/** The variable that makes a snapshot test rewrite its file rather than compare it. */
export const UPDATE_SQL_SNAPSHOTS = 'UPDATE_SQL_SNAPSHOTS';

/**
 * Every statement the fast paths of these entities run (`EntityReader`,
 * `EntityWriter`, as `EntityAccessModule.forFeature` makes them), each under
 * its name, as one SQL file for review. Built from the entities' metadata
 * alone, with no database: the text depends on nothing else, so the same
 * entities give the same file.
 */
export async function renderSqlSnapshot(features: readonly AnyEntityAccess[]): Promise<string> {
  const dataSource = await metadataDataSource(features.map(({ entity }) => entity));
  // The statements do not depend on the subscribers: both inserts are built, one runs.
  const events = {
    outbox: new WebhookOutbox({ urls: [] } as unknown as WebhookConfig),
    dispatcher: { nudge: () => undefined },
  };
  const sections = features.flatMap((access) => {
    const reader = createEntityReader(dataSource, access);
    const writer = createEntityWriter(dataSource, access, { concurrency: 1, maxBatchSize: 1 }, events);
    return [
      ...reader.statements.map((statement) => section(`EntityReader(${access.entity.name})`, statement)),
      ...writer.statements.map((statement) => section(`EntityWriter(${access.entity.name})`, statement)),
    ];
  });
  return [
    "-- The statements of the fast paths, generated from the entities' TypeORM metadata: do not edit.",
    `-- The test beside this file fails when it is stale; ${UPDATE_SQL_SNAPSHOTS}=1 makes it rewrite it.`,
    '',
    ...sections,
  ].join('\n');
}

function section(provider: string, { name, text }: NamedStatement): string {
  return `-- ${provider} ${name}\n${text};\n`;
}

/**
 * The snapshot file as stored (undefined when there is none) and as the
 * entities generate it now; with `UPDATE_SQL_SNAPSHOTS=1`, the file is
 * written first, so the two are the same.
 */
export async function sqlSnapshot(
  file: URL,
  features: readonly AnyEntityAccess[],
): Promise<{ stored: string | undefined; generated: string }> {
  const generated = await renderSqlSnapshot(features);
  const path = fileURLToPath(file);
  if (process.env[UPDATE_SQL_SNAPSHOTS] === '1') {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, generated);
  }
  const stored = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') {
      return undefined;
    }
    throw error;
  });
  return { stored, generated };
}
