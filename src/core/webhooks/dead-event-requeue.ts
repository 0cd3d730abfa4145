import { parseArgs } from 'node:util';

import type { Queryable } from '../database/raw-query.js';

/** Every dead delivery, or those of the events named. */
export type RequeueSelection = { readonly all: true } | { readonly eventIds: readonly string[] };

export interface RequeueResult {
  /** Deliveries turned back to pending (one per event and subscriber). */
  readonly deliveries: number;
  /** The events they belong to. */
  readonly eventIds: ReadonlySet<string>;
  /** Events named in the selection that had no dead delivery: unknown, pending, delivered, or deleted. */
  readonly notDead: readonly string[];
}

export class RequeueUsageError extends Error {
  override readonly name = 'RequeueUsageError';
}

export const REQUEUE_USAGE = 'Usage: webhooks:requeue -- --all | --id <event id> [--id <event id> ...]';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Rows re-queued per statement: short statements, few row locks at a time. */
const REQUEUE_BATCH = 1_000;

/**
 * A batch of dead rows back to pending, due now, with a full set of attempts.
 * The last error stays until the next attempt replaces or clears it. Only
 * rows dead before the command started ($3): one that the dispatcher gives up
 * again meanwhile (its subscriber still failing) is not taken round again.
 * `SKIP LOCKED`: a row being deleted by the cleanup at this moment is left to it.
 */
const REQUEUE_SQL = `
  UPDATE webhook_deliveries AS delivery
  SET status = 'pending', attempts = 0, next_attempt_at = now(), dead_at = NULL
  FROM (
    SELECT id FROM webhook_deliveries
    WHERE status = 'dead' AND dead_at <= $3::timestamptz
      AND ($2::uuid[] IS NULL OR event_id = ANY ($2::uuid[]))
    LIMIT $1
    FOR UPDATE SKIP LOCKED
  ) AS dead
  WHERE delivery.id = dead.id
  RETURNING delivery.event_id`;

/** The database's clock, as text: it goes back to a timestamptz to the microsecond. */
const NOW_SQL = 'SELECT now()::text AS now';

/** Reads the command line: `--all`, or one or more `--id <uuid>`. */
export function parseRequeueArguments(args: readonly string[]): RequeueSelection {
  let values: { all?: boolean; id?: string[] };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { all: { type: 'boolean' }, id: { type: 'string', multiple: true } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new RequeueUsageError(error instanceof Error ? error.message : String(error));
  }
  const ids = values.id ?? [];
  if (values.all ? ids.length > 0 : ids.length === 0) {
    throw new RequeueUsageError('Give --all, or one or more --id, not both');
  }
  const invalid = ids.filter((id) => !UUID.test(id));
  if (invalid.length > 0) {
    throw new RequeueUsageError(`Not an event id (a UUID): ${invalid.join(', ')}`);
  }
  return values.all ? { all: true } : { eventIds: [...new Set(ids.map((id) => id.toLowerCase()))] };
}

/**
 * Turns dead deliveries back to pending, batch after batch, so that the
 * dispatcher of any instance delivers them again (at its next poll). Safe
 * while the service runs: rows are claimed as the dispatcher claims them.
 */
export async function requeueDeadEvents(db: Queryable, selection: RequeueSelection): Promise<RequeueResult> {
  const eventIds = new Set<string>();
  const filter = 'all' in selection ? null : selection.eventIds;
  const {
    rows: [{ now: started }],
  } = await db.query<{ now: string }>({ text: NOW_SQL });
  let deliveries = 0;
  let rows: Array<{ event_id: string }>;
  do {
    ({ rows } = await db.query<{ event_id: string }>({
      text: REQUEUE_SQL,
      values: [REQUEUE_BATCH, filter, started],
    }));
    deliveries += rows.length;
    rows.forEach((row) => eventIds.add(row.event_id));
  } while (rows.length === REQUEUE_BATCH);
  return {
    deliveries,
    eventIds,
    notDead: filter === null ? [] : filter.filter((id) => !eventIds.has(id)),
  };
}

/** What the command prints: what it did, then what it could not do. */
export function describeRequeue(result: RequeueResult): string[] {
  const lines = [
    result.deliveries === 0
      ? 'No dead webhook delivery to re-queue'
      : `Re-queued ${result.deliveries} dead webhook deliveries of ${result.eventIds.size} event(s): ` +
        'they will be delivered again',
  ];
  for (const id of result.notDead) {
    lines.push(
      `Event ${id} has no dead delivery (unknown, pending, delivered or deleted): nothing re-queued`,
    );
  }
  return lines;
}
