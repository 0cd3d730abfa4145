import { parseArgs } from 'node:util';

import type { Queryable } from '../database/raw-query.js';
import { isHttpUrl, subscriberLabel } from './webhook-subscribers.js';

export type RequeueSelection =
  | { readonly all: true }
  | { readonly eventIds: readonly string[] }
  /** The subscribers' events marked `unsubscribed`, by their outbox name (`subscriberLabel`). */
  | { readonly unsubscribed: readonly string[] };

export interface RequeueResult {
  readonly state: 'dead' | 'unsubscribed';
  readonly deliveries: number;
  readonly eventIds: ReadonlySet<string>;
  readonly notDead: readonly string[];
}

export class RequeueUsageError extends Error {
  override readonly name = 'RequeueUsageError';
}

export const REQUEUE_USAGE =
  'Usage: webhooks:requeue -- --all | --id <event id> [--id <event id> ...] | --unsubscribed <subscriber URL> [...]';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Rows re-queued per statement: short statements, few row locks at a time. */
const REQUEUE_BATCH = 1_000;

/**
 * Only rows in that state before the command started ($3): one given up again meanwhile (its
 * subscriber still failing, or still configured nowhere) is not taken round again. `SKIP LOCKED`: a
 * row the cleanup is deleting is left to it.
 */
const REQUEUE_SQL = `
  UPDATE webhook_deliveries AS delivery
  SET status = 'pending', attempts = 0, next_attempt_at = now(), dead_at = NULL, unsubscribed_at = NULL
  FROM (
    SELECT id FROM webhook_deliveries
    WHERE status = $4 AND coalesce(dead_at, unsubscribed_at) <= $3::timestamptz
      AND ($2::uuid[] IS NULL OR event_id = ANY ($2::uuid[]))
      AND ($5::text[] IS NULL OR subscriber = ANY ($5::text[]))
    LIMIT $1
    FOR UPDATE SKIP LOCKED
  ) AS chosen
  WHERE delivery.id = chosen.id
  RETURNING delivery.event_id`;

/** The database's clock, as text: it goes back to a timestamptz to the microsecond. */
const NOW_SQL = 'SELECT now()::text AS now';

export function parseRequeueArguments(args: readonly string[]): RequeueSelection {
  let values: { all?: boolean; id?: string[]; unsubscribed?: string[] };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        all: { type: 'boolean' },
        id: { type: 'string', multiple: true },
        unsubscribed: { type: 'string', multiple: true },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new RequeueUsageError(error instanceof Error ? error.message : String(error));
  }
  const ids = values.id ?? [];
  const subscribers = values.unsubscribed ?? [];
  if ([values.all === true, ids.length > 0, subscribers.length > 0].filter(Boolean).length !== 1) {
    throw new RequeueUsageError('Give one of --all, one or more --id, or one or more --unsubscribed');
  }
  if (subscribers.length > 0) {
    const invalid = subscribers.filter((entry) => {
      const url = URL.parse(entry);
      return !url || !isHttpUrl(url);
    });
    if (invalid.length > 0) {
      throw new RequeueUsageError(`Not an http:// or https:// URL: ${invalid.length} of --unsubscribed`);
    }
    return { unsubscribed: [...new Set(subscribers.map(subscriberLabel))] };
  }
  const invalid = ids.filter((id) => !UUID.test(id));
  if (invalid.length > 0) {
    throw new RequeueUsageError(`Not an event id (a UUID): ${invalid.join(', ')}`);
  }
  return values.all ? { all: true } : { eventIds: [...new Set(ids.map((id) => id.toLowerCase()))] };
}

/** Safe while the service runs: rows are locked as the dispatcher locks them. */
export async function requeueEvents(db: Queryable, selection: RequeueSelection): Promise<RequeueResult> {
  const eventIds = new Set<string>();
  const filter = 'eventIds' in selection ? selection.eventIds : null;
  const subscribers = 'unsubscribed' in selection ? selection.unsubscribed : null;
  const state = subscribers === null ? 'dead' : 'unsubscribed';
  const {
    rows: [{ now: started }],
  } = await db.query<{ now: string }>({ text: NOW_SQL });
  let deliveries = 0;
  let rows: Array<{ event_id: string }>;
  do {
    ({ rows } = await db.query<{ event_id: string }>({
      text: REQUEUE_SQL,
      values: [REQUEUE_BATCH, filter, started, state, subscribers],
    }));
    deliveries += rows.length;
    rows.forEach((row) => eventIds.add(row.event_id));
  } while (rows.length === REQUEUE_BATCH);
  return {
    state,
    deliveries,
    eventIds,
    notDead: filter === null ? [] : filter.filter((id) => !eventIds.has(id)),
  };
}

export function describeRequeue(result: RequeueResult): string[] {
  const lines = [
    result.deliveries === 0
      ? `No ${result.state} webhook delivery to re-queue`
      : `Re-queued ${result.deliveries} ${result.state} webhook deliveries of ${result.eventIds.size} event(s): ` +
        'they will be delivered again',
  ];
  for (const id of result.notDead) {
    lines.push(
      `Event ${id} has no dead delivery (unknown, pending, delivered or deleted): nothing re-queued`,
    );
  }
  return lines;
}
