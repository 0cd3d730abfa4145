import { createHmac } from 'node:crypto';

/** The Standard Webhooks headers (https://www.standardwebhooks.com), as its libraries read them. */
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/** Standard Webhooks puts the type in the body, but here the body is the resource itself. */
export const WEBHOOK_EVENT_TYPE_HEADER = 'webhook-event-type';

/**
 * The `webhook-signature` header, one signature per key so that keys rotate without a gap. The id is
 * signed too: a captured delivery cannot be replayed under another id past a receiver's de-duplication.
 */
export function signWebhook(
  keys: readonly Uint8Array[],
  eventId: string,
  timestamp: number,
  body: string,
): string {
  const signed = `${eventId}.${timestamp}.${body}`;
  return keys.map((key) => `v1,${createHmac('sha256', key).update(signed).digest('base64')}`).join(' ');
}
