import { parseArgs } from 'node:util';

import type { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
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

/**
 * Safe while the service runs: rows are locked as the dispatcher locks them. Only rows in that state
 * before the command started: one given up again meanwhile (its subscriber still failing, or still
 * configured nowhere) is not taken round again.
 */
export async function requeueEvents(
  deliveries: WebhookDeliveriesRepository,
  selection: RequeueSelection,
): Promise<RequeueResult> {
  const eventIds = new Set<string>();
  const filter = 'eventIds' in selection ? selection.eventIds : null;
  const subscribers = 'unsubscribed' in selection ? selection.unsubscribed : null;
  const state = subscribers === null ? 'dead' : 'unsubscribed';
  const since = await deliveries.now();
  let deliveriesRequeued = 0;
  let requeued: string[];
  do {
    requeued = await deliveries.requeue(
      { status: state, since, eventIds: filter, subscribers },
      REQUEUE_BATCH,
    );
    deliveriesRequeued += requeued.length;
    requeued.forEach((eventId) => eventIds.add(eventId));
  } while (requeued.length === REQUEUE_BATCH);
  return {
    state,
    deliveries: deliveriesRequeued,
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
